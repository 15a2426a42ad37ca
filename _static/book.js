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

  bookFigures();
  scrollCues();
});

// A table that does not fit its column scrolls in the theme's box: the box fades out on
// the side where more hides (book.css), as a figure's does.
function scrollCues() {
  const watcher = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { markFigureEdges(entry.target); });
  });
  document.querySelectorAll(".bd-article .pst-scrollable-table-container").forEach(
    function (box) {
      box.classList.add("book-scroll-cue");
      box.addEventListener("scroll", function () { markFigureEdges(box); }, {passive: true});
      watcher.observe(box);
    });
}

// Figures: legible on a phone, a cue where one is wider than the screen, and a tap that
// shows it whole.
//
// A picture shrinks to fit a phone, but not below 70% of its natural size, where its text
// (10 pt and up) would drop below 9 px: a wider picture scrolls sideways in a box of its
// own (not its figure, so the caption stays put). Phones hide scrollbars, so such a box
// fades out at the edge where more picture hides, with a "scroll" hint under it. Every
// picture is a button that opens it at its natural size, over the page.
function bookFigures() {
  const overlay = figureOverlay();
  const watcher = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { markFigureEdges(entry.target); });
  });

  function keepLegible(image) {
    if (!image.naturalWidth) return;
    // toygrad.viz's graphs set their own smallest width inline; the others get 70%.
    if (!image.style.minWidth) {
      image.style.minWidth = Math.round(0.7 * image.naturalWidth) + "px";
    }
    // A picture drawn for both colour modes (_ext/themed_figures.py) is one figure: its
    // light and dark versions share the box, the button and the hint.
    const picture = image.closest(".themed-figure") || image;
    if (picture.closest(".book-figure-scroll")) {
      watcher.observe(image);
      return;
    }
    const box = document.createElement("div");
    box.className = "book-figure-scroll";
    const open = document.createElement("button");
    open.type = "button";
    open.className = "book-figure-open";
    open.title = "Show the figure at full size";
    open.setAttribute("aria-haspopup", "dialog");
    picture.before(box);
    box.append(open);
    open.append(picture);
    const hint = document.createElement("div");
    hint.className = "book-figure-hint";
    hint.setAttribute("aria-hidden", "true");  // sighted readers' cue; the button says it
    hint.textContent = "scroll → or tap to enlarge";
    box.after(hint);
    open.addEventListener("click", function () {
      // The version the reader sees (the other one is hidden in this colour mode).
      const shown = [...open.querySelectorAll("img")].find((each) => each.offsetParent);
      overlay.show(shown || image, open);
    });
    box.addEventListener("scroll", function () { markFigureEdges(box); }, {passive: true});
    watcher.observe(box);
    watcher.observe(image);
  }
  document.querySelectorAll(".bd-article .cell_output img").forEach(function (image) {
    if (image.complete) keepLegible(image);
    else image.addEventListener("load", function () { keepLegible(image); });
  });
}

// Which of a figure's (or a table's) sides hide some of it: the box's classes say, for the
// styles.
function markFigureEdges(box) {
  box = box.closest(".book-figure-scroll, .book-scroll-cue");
  if (!box) return;
  const hidden = box.scrollWidth - box.clientWidth;
  box.classList.toggle("book-figure-scrolls", hidden > 1);
  box.classList.toggle("book-figure-more-right", box.scrollLeft < hidden - 1);
  box.classList.toggle("book-figure-more-left", box.scrollLeft > 1);
}

// One dialog for the page: the picture at its natural size (scrolling both ways if the
// screen is smaller), closed by a tap anywhere, by Escape, or by its close button.
function figureOverlay() {
  const dialog = document.createElement("dialog");
  dialog.className = "book-figure-overlay";
  dialog.setAttribute("aria-label", "Figure at full size");
  const close = document.createElement("button");
  close.type = "button";
  close.className = "book-figure-close";
  close.setAttribute("aria-label", "Close the full-size figure");
  close.textContent = "×";
  const panel = document.createElement("div");
  panel.className = "book-figure-full";
  dialog.append(close, panel);
  document.body.append(dialog);
  let opener = null;
  dialog.addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("close", function () {
    panel.replaceChildren();
    if (opener) opener.focus();
  });
  return {
    show: function (image, from) {
      opener = from;
      const copy = document.createElement("img");
      copy.src = image.currentSrc || image.src;
      copy.alt = image.alt;
      copy.width = image.naturalWidth;
      copy.height = image.naturalHeight;
      panel.replaceChildren(copy);
      dialog.showModal();
      close.focus();
    },
  };
}

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
