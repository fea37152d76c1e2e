// The HTML report in a real browser (Debian's chromium driven by playwright-core):
//   node report.mjs SITE_DIR SCREENSHOT_DIR NEEDLE
// opens SITE_DIR/index.html from file://, checks the charts, clicks a point of the first
// chart, checks the commit page (verdict table, runs, flame graph), saves screenshots
// (report-index.png, report-commit.png) into SCREENSHOT_DIR, and checks that NEEDLE (a
// string with markup from the program under test) is shown as text, nowhere run as
// script. Exits non-zero with a message on the first failure.
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
	const charts = page.locator('svg.chart');
	check((await charts.count()) >= 2, `expected at least 2 charts, found ${await charts.count()}`);
	const points = charts.first().locator('a circle.pt');
	check((await points.count()) >= 2, 'the first chart has fewer than 2 points');
	// The markup of the program under test is text, not elements.
	const body = await page.locator('body').innerText();
	check(body.includes(needle), `index: "${needle}" is not shown as text`);
	check((await page.locator('script').count()) === 0, 'index: a <script> element exists');
	await page.screenshot({ path: path.join(shots, 'report-index.png'), fullPage: false });

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
