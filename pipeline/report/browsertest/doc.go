// Package browsertest opens the results site in headless Chromium (driven
// by chromedp) and checks it as a reader sees it: every page loads without
// console errors, every chart's canvas is drawn, every internal link
// resolves. The test is skipped when no Chromium binary is installed.
package browsertest
