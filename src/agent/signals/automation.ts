// Globals that automation tools leave behind.
const GLOBALS = (
  '_phantom callPhantom __nightmare domAutomation domAutomationController _selenium _Selenium_IDE_Recorder ' +
  'callSelenium __webdriver_script_fn __driver_evaluate __webdriver_evaluate __selenium_evaluate __fxdriver_evaluate ' +
  '__driver_unwrapped __webdriver_unwrapped __selenium_unwrapped __fxdriver_unwrapped __playwright__binding__ ' +
  '__pwInitScripts __puppeteer_evaluation_script__ Cypress awesomium'
).split(' ');
// Attributes Selenium's drivers set on <html> (as globals these names are too common to count).
const ATTRIBUTES = ['webdriver', 'selenium', 'driver'];

export const automation = () => ({
  webdriver: !!navigator.webdriver,
  headless_ua: /Headless/i.test(navigator.userAgent),
  globals: [
    ...GLOBALS.filter((g) => g in window),
    ...ATTRIBUTES.filter((a) => document.documentElement.hasAttribute(a)),
    // ChromeDriver's injected cache keys
    ...Object.keys(document).filter((k) => /^\$?[cw]dc_/.test(k)),
  ],
});
