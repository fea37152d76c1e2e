// The HTML report in a real browser (Debian's chromium driven by playwright-core):
//   node report.mjs SITE_DIR SCREENSHOT_DIR NEEDLE
// opens SITE_DIR/index.html from file://, checks the charts, clicks a point of the first
// chart, checks the commit page (verdict table, runs, flame graph), saves screenshots
// (report-index.png, report-commit.png) into SCREENSHOT_DIR, and checks that NEEDLE (a
// string with markup from the program under test) is shown as text, nowhere run as
// script. Then the layout of both pages in a narrow (400 px) and a wide (1400 px)
// window: the page never scrolls sideways, every chart shown is as wide as the content
// and its text is of a readable size; screenshots report-{index,commit}-{400,1400}.png
// are kept for a person to look at (not compared as pixels). Exits non-zero with a
// message on the first failure.
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [site, shots, needle] = process.argv.slice(2);
if (!site || !shots || !needle) {
	console.error('usage: node report.mjs SITE_DIR SCREENSHOT_DIR NEEDLE');
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

// The smallest text a chart may show, in CSS pixels (the height of a rendered label).
const MIN_TEXT_PX = 9;

// The layout of the page at `width`: no sideways scrolling, charts as wide as the content,
// their labels readable; a full-page screenshot NAME-WIDTH.png in the screenshot directory.
async function layout(page, width, name, wantCharts) {
	await page.setViewportSize({ width, height: 900 });
	const m = await page.evaluate(() => {
		const main = document.querySelector('main');
		const cs = getComputedStyle(main);
		const content = main.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
		const shown = [...document.querySelectorAll('svg.chart')].filter(
			(e) => getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().width > 0);
		const texts = shown.flatMap((c) => [...c.querySelectorAll('text')])
			.map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
		const wide = [...document.querySelectorAll('body *')]
			.filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
			.slice(0, 3).map((e) => `${e.tagName.toLowerCase()}.${e.className.baseVal ?? e.className}`);
		return {
			scroll: document.documentElement.scrollWidth, inner: window.innerWidth, content,
			charts: shown.map((c) => c.getBoundingClientRect().width),
			all: document.querySelectorAll('svg.chart').length,
			labels: shown.map((c) => c.querySelectorAll('text.xlabel').length),
			minText: texts.length ? Math.min(...texts) : 0, wide,
		};
	});
	const at = `${name} at ${width} px`;
	check(m.scroll <= m.inner, `${at}: the page scrolls sideways (scrollWidth ${m.scroll} > ${m.inner}: ${m.wide.join(', ')})`);
	if (wantCharts) {
		// One drawing of each chart is shown: the wide or the narrow one.
		check(m.charts.length > 0 && m.charts.length * 2 === m.all,
			`${at}: ${m.charts.length} of ${m.all} chart drawings shown, expected half`);
		for (const w of m.charts)
			check(Math.abs(w - m.content) <= 1, `${at}: a chart is ${w} px wide, the content ${m.content} px`);
		check(m.labels.every((n) => n >= 2), `${at}: a chart has fewer than 2 commit labels: ${m.labels}`);
		check(m.minText >= MIN_TEXT_PX, `${at}: chart text ${m.minText.toFixed(1)} px high, below ${MIN_TEXT_PX} px`);
	}
	await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
}

const browser = await chromium.launch({
	executablePath,
	headless: true,
	args: ['--no-sandbox', '--allow-file-access-from-files'],
});
let failed = false;
try {
	const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
	const dialogs = [];
	const errors = [];
	page.on('dialog', async (d) => {
		dialogs.push(d.message());
		await d.dismiss();
	});
	page.on('pageerror', (e) => errors.push(String(e)));
	// Nothing may come from the network: the site works offline.
	const remote = [];
	await page.route(/^(?!file:)/, (route) => {
		remote.push(route.request().url());
		route.abort();
	});

	await page.goto(pathToFileURL(path.join(site, 'index.html')).href);
	const charts = page.locator('svg.chart.wide');
	check((await charts.count()) >= 2, `expected at least 2 charts, found ${await charts.count()}`);
	const points = charts.first().locator('a circle.pt');
	check((await points.count()) >= 2, 'the first chart has fewer than 2 points');
	// The markup of the program under test is text, not elements.
	const body = await page.locator('body').innerText();
	check(body.includes(needle), `index: "${needle}" is not shown as text`);
	check((await page.locator('script').count()) === 0, 'index: a <script> element exists');
	await page.screenshot({ path: path.join(shots, 'report-index.png'), fullPage: false });
	for (const width of [400, 1400])
		await layout(page, width, 'report-index', true);
	await page.setViewportSize({ width: 1100, height: 1400 });

	// A point opens its commit's page. The last point is the newest commit, the one whose
	// comparison has the attribution.
	await Promise.all([page.waitForNavigation(), points.last().click()]);
	check(/\/commits\/[0-9a-f]+\.html$/.test(page.url()), `clicking a point opened ${page.url()}`);
	check((await page.locator('h1').innerText()).startsWith('Commit'), 'no commit heading');
	check((await page.locator('table.verdicts tr').count()) >= 2, 'no verdict table');
	check((await page.locator('table.runs tr').count()) >= 2, 'no runs table');
	const flame = page.locator('iframe.flamegraph');
	check((await flame.count()) >= 1, 'no flame graph');
	const frame = await (await flame.first().elementHandle()).contentFrame();
	await frame.waitForLoadState();
	check((await frame.locator('rect').count()) > 0, 'the flame graph frame shows no frames');
	check((await page.locator('table.io tr').count()) >= 2, 'no I/O similarity table');
	const io = await page.locator('table.io').innerText();
	check(io.includes('<script>'), 'the function named with <script> is not shown as text');
	check((await page.locator('script').count()) === 0, 'commit page: a <script> element');
	await page.screenshot({ path: path.join(shots, 'report-commit.png'), fullPage: true });
	for (const width of [400, 1400])
		await layout(page, width, 'report-commit', false);
	await page.setViewportSize({ width: 1100, height: 1400 });

	// Back to the index through the older commits: every page links on.
	await Promise.all([page.waitForNavigation(), page.locator('a[rel=prev]').click()]);
	check(/\/commits\/[0-9a-f]+\.html$/.test(page.url()), 'the older link is broken');
	await Promise.all([page.waitForNavigation(), page.locator('a', { hasText: 'index' }).first().click()]);
	check(page.url().endsWith('/index.html'), 'the index link is broken');

	check(dialogs.length === 0, `a dialog opened: ${dialogs.join('; ')}`);
	check(errors.length === 0, `page errors: ${errors.join('; ')}`);
	check(remote.length === 0, `requests to the network: ${remote.join(' ')}`);
	console.log('browser: ok');
} catch (e) {
	console.error(`FAIL: ${e.message}`);
	failed = true;
} finally {
	await browser.close();
}
process.exit(failed ? 1 : 0);
