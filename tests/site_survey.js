// The survey of one page of the built book, as a reader meets it (see tests/test_site.py).
// Run inside the page by Selenium; `survey(options)` resolves to plain data, one entry per
// check. It opens every solution first, so that what solutions show is surveyed too, and
// tries the menus last, because they change the page.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The next frame (a ResizeObserver's callbacks run in it), or 100 ms if no frame comes.
const frame = () => new Promise((resolve) => {
  requestAnimationFrame(() => resolve());
  setTimeout(resolve, 100);
});

// Wait until `condition()` holds (none: at once), then until no CSS transition or finite
// animation runs and two frames have passed; true if the condition came within `timeout` ms.
// A wait on what the page does, not a fixed sleep that a loaded machine can outrun.
async function settle(condition, timeout = 5000) {
  const end = performance.now() + timeout;
  let held = false;
  while (!(held = !condition || condition()) && performance.now() < end) await sleep(25);
  while (performance.now() < end && document.getAnimations().some((animation) =>
    animation.playState === "running"
    && Number.isFinite(animation.effect && animation.effect.getComputedTiming().endTime))) {
    await sleep(25);
  }
  await frame();
  await frame();
  return held;
}

function visible(element) {
  if (!element || !element.getClientRects().length) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
}

function describe(element) {
  const text = (element.innerText || element.getAttribute("alt") || "").trim();
  return `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}: ${text.slice(0, 60)}`;
}

// Contrast, as WCAG defines it, between two opaque sRGB colours.
function parseColour(css) {
  const match = css.match(/^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/);
  if (!match) throw new Error(`colour in an unexpected format: ${css}`);
  return [+match[1], +match[2], +match[3], match[4] === undefined ? 1 : +match[4]];
}

function luminance([r, g, b]) {
  const linear = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

function blend(top, bottom) {
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
}

function background(element) {
  // The layers of background colour behind an element, composed from the page upwards.
  const layers = [];
  for (let node = element; node && node.nodeType === 1; node = node.parentElement) {
    const colour = parseColour(getComputedStyle(node).backgroundColor);
    if (colour[3] > 0) layers.push(colour);
    if (colour[3] === 1) break;
  }
  let result = [255, 255, 255, 1];
  for (const layer of layers.reverse()) result = blend(layer, result);
  return result;
}

function contrast(element) {
  const back = background(element);
  const fore = blend(parseColour(getComputedStyle(element).color), back);
  const [high, low] = [luminance(fore), luminance(back)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

function cutOff(article) {
  const cut = [];
  const edge = article.getBoundingClientRect();
  for (const table of article.querySelectorAll("table")) {
    if (!visible(table)) continue;
    const room = table.parentElement.clientWidth;
    // (One that scrolls in its box, which fades out where more of it hides, is not cut.)
    const box = getComputedStyle(table.parentElement);
    const cued = ["auto", "scroll"].includes(box.overflowX)
      && [box.maskImage, box.webkitMaskImage].some((mask) => mask && mask !== "none");
    if (table.getBoundingClientRect().width > room + 1 && !cued) {
      cut.push(`table wider than its column (${Math.round(table.getBoundingClientRect().width)}`
        + ` > ${room} px): ${describe(table.querySelector("tr") || table)}`);
    }
  }
  for (const math of article.querySelectorAll('mjx-container:not([display="true"])')) {
    if (!visible(math)) continue;
    const box = math.getBoundingClientRect();
    if (box.right > edge.right + 1 || box.left < edge.left - 1) {
      cut.push(`inline formula outside the text column: ${math.textContent.slice(0, 60)}`);
    }
  }
  for (const element of article.querySelectorAll("*")) {
    // MathJax's own boxes clip the overhang of italic glyphs: formulas are checked above.
    if (element.closest("span.math, mjx-container")) continue;
    const style = getComputedStyle(element);
    const hides = ["hidden", "clip"].includes(style.overflowX);
    if (hides && visible(element) && element.scrollWidth > element.clientWidth + 1) {
      cut.push(`content hidden beyond the right edge: ${describe(element)}`);
    }
  }
  return cut;
}

function overflow(article, width) {
  // How far the page reaches beyond the screen's width. Measured against the device's
  // width, not the window's: a phone widens its layout to fit content that overflows.
  let right = document.documentElement.scrollWidth;
  for (const element of article.querySelectorAll("*")) {
    let scrolled = false;  // inside a box that scrolls or clips: it cannot widen the page
    for (let box = element.parentElement; box && box !== article; box = box.parentElement) {
      if (getComputedStyle(box).overflowX !== "visible") { scrolled = true; break; }
    }
    if (!scrolled && visible(element)) {
      right = Math.max(right, element.getBoundingClientRect().right + window.scrollX);
    }
  }
  return Math.round(right - width);
}

async function textSizes(image) {
  // The rendered size of every text in an SVG image: the SVG is drawn off-screen at the
  // image's rendered size, and each text's font size is scaled by its transformation.
  const source = await (await fetch(image.currentSrc || image.src)).text();
  const svg = document.importNode(
    new DOMParser().parseFromString(source, "image/svg+xml").documentElement, true);
  svg.setAttribute("width", image.clientWidth);
  svg.setAttribute("height", image.clientHeight);
  const box = document.createElement("div");
  box.style.cssText = "position:absolute;left:-20000px;top:0";
  box.appendChild(svg);
  document.body.appendChild(box);
  const sizes = [];
  for (const text of svg.querySelectorAll("text")) {
    if (!text.textContent.trim()) continue;
    const m = text.getScreenCTM();
    sizes.push(parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b));
  }
  box.remove();
  return sizes;
}

async function figures(article) {
  const found = [];
  for (const image of article.querySelectorAll("img")) {
    if (!visible(image)) continue;
    const src = image.currentSrc || image.src;
    const bitmap = /^data:image\/(png|jpe?g|gif|webp)|\.(png|jpe?g|gif|webp)(\?|#|$)/i.test(src);
    const svg = /^data:image\/svg\+xml|\.svg(\?|#|$)/i.test(src);
    const sizes = svg ? await textSizes(image) : [];
    found.push({
      src: src.startsWith("data:") ? src.slice(0, 40) + "..." : src,
      alt: image.getAttribute("alt") || "",
      bitmap: bitmap || !svg,
      texts: sizes.length,
      min_text_px: sizes.length ? Math.min(...sizes) : null,
    });
  }
  return found;
}

// Figures cut at the edge of their box with nothing to say so. Phones hide scrollbars, so
// a picture wider than its box must show a cue: a fade (mask-image) on its box, or a
// visible hint beside the box that says it scrolls. Each entry: the picture's alt text,
// and the pixels hidden.
function uncuedFigures(article) {
  const found = [];
  for (const image of article.querySelectorAll("img")) {
    if (!visible(image)) continue;
    let box = image.parentElement;
    while (box && box !== article && getComputedStyle(box).overflowX === "visible") {
      box = box.parentElement;
    }
    if (!box || box === article || box.scrollWidth <= box.clientWidth + 1) continue;
    const style = getComputedStyle(box);
    const faded = [style.maskImage, style.webkitMaskImage].some((mask) => mask && mask !== "none");
    const hinted = [box.previousElementSibling, box.nextElementSibling].some((element) =>
      element && visible(element) && /scroll/i.test(element.innerText));
    if (!faded && !hinted) {
      found.push(`${box.scrollWidth - box.clientWidth} px hidden: `
        + `${(image.getAttribute("alt") || image.src).slice(0, 60)}`);
    }
  }
  return found;
}

function captions(article) {
  return [...article.querySelectorAll("figcaption, .caption, caption")]
    .filter(visible)
    .map((caption) => ({ text: caption.innerText.trim(), contrast: contrast(caption) }));
}

// Text in cell outputs that is too faint to read: every visible element with text of its
// own, its colour composed on the backgrounds behind it (the review's P2: operation names
// pink on the dark theme's light output panel, 1.01:1). WCAG AA: 4.5:1, 3:1 for large text.
function outputContrast(article) {
  const faint = [];
  for (const element of article.querySelectorAll(".cell_output *")) {
    const own = [...element.childNodes].some((node) =>
      node.nodeType === 3 && node.textContent.trim());
    // (A control that is switched off is exempt, as WCAG 1.4.3 says.)
    if (!own || !visible(element) || element.closest("svg, mjx-container, :disabled")) {
      continue;
    }
    const style = getComputedStyle(element);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && +style.fontWeight >= 700);
    const ratio = contrast(element);
    if (ratio < (large ? 3 : 4.5)) {
      faint.push(`${ratio.toFixed(2)}:1 ${describe(element)}`);
    }
  }
  return faint;
}

async function accessibility(accepted, incomplete) {
  const results = await axe.run(document, {
    runOnly: {
      type: "tag",
      values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
    resultTypes: ["violations", "incomplete"],
  });
  if (incomplete) {
    // What axe could not decide about colour contrast but measured: a ratio below what the
    // text needs (axe files a 1:1 ratio, text the colour of its background, as incomplete).
    incomplete.push(...results.incomplete
      .filter((finding) => finding.id === "color-contrast")
      .flatMap((finding) => finding.nodes)
      .filter((node) => node.any.some((check) => check.data && check.data.contrastRatio
        && check.data.expectedContrastRatio
        && check.data.contrastRatio < parseFloat(check.data.expectedContrastRatio)))
      .map((node) => node.target.join(" ") + ": "
        + node.any.map((check) => check.data.contrastRatio).join(", ")));
  }
  return results.violations
    .filter((violation) => ["serious", "critical"].includes(violation.impact))
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(" ")),
      // Whether each element is one that `accepted[rule]` (selectors) names.
      accepted: violation.nodes.map((node) => {
        const element = node.target.length === 1 ? document.querySelector(node.target[0]) : null;
        return !!element && (accepted[violation.id] || []).some((selector) => element.matches(selector));
      }),
    }));
}

// Inline code that a line breaks in the middle of a word ("Function.appl|y") or of an option
// ("-|-json"): a line may break at a space, after punctuation, or where _ext/break_points.py
// put a <wbr> (between two text nodes), not between two letters of one text node.
function codeBreaks(article) {
  const broken = [];
  const range = document.createRange();
  for (const code of article.querySelectorAll("code.literal")) {
    if (!visible(code) || code.getClientRects().length < 2) continue;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (!box.height) continue;
        // Between two letters or digits, or inside an option ("-|m", "-|-json").
        const option = text[i - 1] === "-" && /^$|[\s-]/.test(text[i - 2] || "");
        if (top !== null && box.top > top + 2
            && ((/\w/.test(text[i - 1] || " ") && /\w/.test(text[i])) || option)) {
          broken.push(`${text.slice(0, i)}|${text.slice(i)}`);
          break;
        }
        top = box.top;
      }
    }
  }
  return broken;
}

// What printing from this view gives (the review's P4: dark pages, or faint text, when the
// reader's mode was dark): the page's text and background as printing begins, then the mode
// after printing ends.
async function printed() {
  const mode = document.documentElement.dataset.theme;
  window.dispatchEvent(new Event("beforeprint"));
  await frame();
  const body = document.querySelector(".bd-article p") || document.body;
  const result = {
    contrast: contrast(body),
    background_luminance: luminance(background(body)),
  };
  window.dispatchEvent(new Event("afterprint"));
  await frame();
  result.mode_after = document.documentElement.dataset.theme;
  result.mode_before = mode;
  return result;
}

async function tryButton(selector, dialogSelector) {
  // Click the visible button; report whether anything opened or closed, then undo it.
  const button = [...document.querySelectorAll(selector)].find(visible);
  if (!button) return false;
  const dialog = document.querySelector(dialogSelector);
  const sidebar = document.querySelector(".bd-sidebar-primary");
  const state = () => JSON.stringify([
    dialog ? dialog.open : null, sidebar ? visible(sidebar) : null,
    document.body.className, document.documentElement.className]);
  const before = state();
  button.click();
  // What shows 400 ms after the click counts (a menu that opens and shuts again does
  // nothing); a loaded machine gets up to 3 s for the change.
  await sleep(400);
  await settle(() => state() !== before, 2600);
  const changed = state() !== before;
  if (dialog && dialog.open) dialog.close();
  else if (changed) button.click();
  await settle(() => state() === before);  // undone before the next button is tried
  return changed;
}

async function menus(mobile) {
  const toc = document.querySelector(".bd-sidebar-secondary");
  return {
    primary_toggles: document.querySelectorAll(".primary-toggle").length,
    primary_opens: await tryButton(".primary-toggle", "#pst-primary-sidebar-modal"),
    has_page_toc: !!(toc && toc.querySelector("nav a")),
    secondary_opens: mobile
      ? await tryButton(".secondary-toggle", "#pst-secondary-sidebar-modal")
      : null,
  };
}

async function survey(options) {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  // Pictures the browser would load only when the reader scrolls near them (a figure's
  // dark version is lazy): all of them now, so that every one is surveyed.
  const lazy = [...document.images].filter((image) => image.loading === "lazy");
  lazy.forEach((image) => { image.loading = "eager"; });
  await settle(() => lazy.every((image) => image.complete), 20000);
  const toggled = [...document.querySelectorAll(".solution button.toggle-button")].map((button) => {
    const box = button.closest(".admonition");
    const hidden = box && box.classList.contains("toggle-hidden");
    button.click();
    return [box, hidden];
  });
  // Every solution flipped open and done fading in (togglebutton.css: 0.3 s).
  await settle(() => toggled.every(([box, hidden]) =>
    !box || box.classList.contains("toggle-hidden") !== hidden));
  // And every collapsed box of the article (dropdowns, hidden code): what a reader who
  // opens them meets is surveyed too (a closed one's content still has a layout).
  for (const box of document.querySelectorAll("article details:not([open])")) box.open = true;
  await settle();
  const article = document.querySelector("article.bd-article") || document.querySelector("main");
  const incomplete = [];
  return {
    mobile: options.mobile,
    overflow: overflow(article, options.width),
    cut: cutOff(article),
    figures: await figures(article),
    uncued: uncuedFigures(article),
    captions: captions(article),
    output_contrast: outputContrast(article),
    axe: await accessibility(options.accepted, incomplete),
    axe_incomplete_contrast: incomplete,
    code_breaks: codeBreaks(article),
    printed: await printed(),
    menus: await menus(options.mobile),
  };
}
