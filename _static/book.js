// The book's own scripts, on top of sphinx-book-theme (see _static/book.css).

document.addEventListener("DOMContentLoaded", function () {
  // A box that scrolls sideways can be scrolled from the keyboard too: it joins the tab
  // order while it overflows. Watched, because a box may first overflow later: in a
  // solution the reader opens, or when the screen turns (the theme marks only the code
  // blocks that overflow when the page loads).
  const watcher = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      const box = entry.target;
      if (box.scrollWidth > box.clientWidth) box.setAttribute("tabindex", "0");
      else if (box.dataset.bookScrolls) box.removeAttribute("tabindex");
      box.dataset.bookScrolls = "";
    });
  });
  document.querySelectorAll(".bd-article pre").forEach(function (block) {
    watcher.observe(block);
  });

  // A picture shrinks to fit a phone, but not below 70% of its natural size, where its text
  // (10 pt and up) would drop below 9 px: a wider picture scrolls sideways in its own box.
  // toygrad.viz's graphs do the same with inline styles, so they need no script.
  function keepLegible(image) {
    if (!image.naturalWidth) return;
    image.style.minWidth = Math.round(0.7 * image.naturalWidth) + "px";
    image.parentElement.style.overflowX = "auto";
    watcher.observe(image.parentElement);
  }
  document.querySelectorAll(".cell_output img").forEach(function (image) {
    if (image.complete) keepLegible(image);
    else image.addEventListener("load", function () { keepLegible(image); });
  });
});

// Printing from the browser (Ctrl+P, or the download menu's ".pdf") prints the light pages
// the PDFs have, whatever colour mode the reader chose; the mode comes back afterwards.
(function () {
  let chosen = null;
  window.addEventListener("beforeprint", function () {
    chosen = document.documentElement.dataset.theme;
    document.documentElement.dataset.theme = "light";
  });
  window.addEventListener("afterprint", function () {
    if (chosen) document.documentElement.dataset.theme = chosen;
    chosen = null;
  });
})();
