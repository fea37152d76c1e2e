// The differential flame graph in a real browser (Debian's chromium driven by
// playwright-core):
//   node flamegraph.mjs SVG_FILE SCREENSHOT_DIR SEARCH WANT_FRAME
// opens SVG_FILE from file:// at 400 px and at 1400 px wide and checks, at each width: no
// horizontal scroll bar, the picture and every row of text inside the page, the paragraphs
// wrapped (text keeps its size: the layout follows the page, it is not scaled down), the
// ranked list of the largest changes with every row linked to a drawn frame; a click on the
// row of WANT_FRAME (a function name) zooms on that frame (full width) and highlights it;
// typing SEARCH in the search box turns matching frames purple and shows the matched
// share. Saves flamegraph-400.png and flamegraph-1400.png into SCREENSHOT_DIR. Exits
// non-zero with a message on the first failure.
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [svg, shots, search, want] = process.argv.slice(2);
if (!svg || !shots || !search || !want) {
	console.error('usage: node flamegraph.mjs SVG_FILE SCREENSHOT_DIR SEARCH WANT_FRAME');
	process.exit(2);
}
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
	console.error(`FAIL: no browser at ${executablePath}; run scripts/install-deps.sh`);
	process.exit(1);
}

function check(cond, what) {
	if (!cond)
		throw new Error(what);
}

const browser = await chromium.launch({
	executablePath,
	headless: true,
	args: ['--no-sandbox', '--allow-file-access-from-files'],
});
let failed = false;
try {
	for (const width of [400, 1400]) {
		const page = await browser.newPage({ viewport: { width, height: 900 } });
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('dialog', async (d) => {
			errors.push(`dialog: ${d.message()}`);
			await d.dismiss();
		});
		await page.goto(pathToFileURL(svg).href);
		await page.waitForFunction(() => document.getElementById('f0') !== null);
		const m = await page.evaluate(() => {
			const de = document.documentElement;
			const rows = [...document.querySelectorAll('text.row, text.wrap, text.sub')]
				.map((t) => t.getBoundingClientRect())
				.filter((r) => r.width > 0);
			const svgBox = de.getBoundingClientRect();
			const wraps = [...document.querySelectorAll('text.wrap')];
			return {
				scrollWidth: Math.max(de.scrollWidth, document.scrollingElement
					? document.scrollingElement.scrollWidth : 0),
				clientWidth: window.innerWidth,
				svgWidth: svgBox.width,
				rightmost: Math.max(...rows.map((r) => r.right)),
				wrapLines: wraps.reduce((n, t) => n + t.getElementsByTagName('tspan').length, 0),
				fontPx: parseFloat(getComputedStyle(wraps[0]).fontSize) *
					(svgBox.width / de.viewBox.baseVal.width),
				rows: [...document.querySelectorAll('g.top-row')].map((g) => ({
					f: g.getAttribute('data-f'),
					text: g.textContent,
					drawn: document.getElementById(g.getAttribute('data-f')) !== null,
				})),
				search: document.getElementById('search') !== null,
			};
		});
		check(m.scrollWidth <= m.clientWidth,
		      `${width} px: horizontal overflow, scrollWidth ${m.scrollWidth} > ${m.clientWidth}`);
		check(m.svgWidth <= width, `${width} px: the picture is ${m.svgWidth} px wide`);
		check(m.rightmost <= width + 0.5,
		      `${width} px: text reaches ${m.rightmost.toFixed(1)} px, beyond the page`);
		check(Math.abs(m.fontPx - 11) < 0.5,
		      `${width} px: text is drawn at ${m.fontPx.toFixed(1)} px, not 11 (scaled, not laid out)`);
		if (width === 400)
			check(m.wrapLines >= 4, `400 px: the paragraphs are not wrapped (${m.wrapLines} lines)`);
		check(m.search, 'no search box');
		check(m.rows.length >= 1, 'no ranked list of the largest changes');
		for (const r of m.rows)
			check(r.drawn, `ranked row "${r.text}" links to ${r.f}, which is not drawn`);

		// A row of the list zooms on its frame and highlights it.
		const row = page.locator('g.top-row', { hasText: want }).first();
		check((await row.count()) === 1, `no ranked row for ${want}`);
		const f = await row.getAttribute('data-f');
		await row.click();
		const z = await page.evaluate((id) => {
			const g = document.getElementById(id);
			return { hl: g.classList.contains('hl'),
				 w: parseFloat(g.querySelector('rect').getAttribute('width')),
				 label: g.querySelector('text').textContent,
				 full: document.documentElement.viewBox.baseVal.width - 20 };
		}, f);
		check(z.hl, `${width} px: clicking the row of ${want} did not highlight ${f}`);
		check(Math.abs(z.w - z.full) < 1, `${width} px: ${f} is ${z.w} px wide after the click, not ${z.full}`);
		check(z.label.length >= 3, `${width} px: the zoomed frame ${f} has no label`);

		// The search box: matching frames turn purple, the share is shown.
		await page.locator('#search').fill(search);
		const s = await page.evaluate(() => ({
			matched: document.getElementById('matched').textContent,
			purple: document.querySelectorAll('g.f.match').length,
		}));
		check(s.purple >= 1, `${width} px: searching "${search}" marked no frame`);
		check(/^matched: [0-9.]+% of the new total in [0-9]+ frames? drawn$/.test(s.matched),
		      `${width} px: matched share "${s.matched}"`);
		await page.locator('#unzoom').click();
		await page.screenshot({ path: path.join(shots, `flamegraph-${width}.png`), fullPage: false });
		check(errors.length === 0, `${width} px: page errors: ${errors.join('; ')}`);
		await page.close();
	}
	console.log('browser: ok');
} catch (e) {
	console.error(`FAIL: ${e.message}`);
	failed = true;
} finally {
	await browser.close();
}
process.exit(failed ? 1 : 0);
