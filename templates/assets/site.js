// Sortable tables: click a column header to sort by it; click again to reverse.
// Cells may carry data-sort with a numeric key; otherwise the text is compared.
(function () {
  "use strict";
  function key(td) {
    if (!td) return "";
    var s = td.getAttribute("data-sort");
    if (s !== null && s !== "" && !isNaN(Number(s))) return Number(s);
    return td.textContent.trim();
  }
  function cmp(a, b) {
    if (typeof a === "number" && typeof b === "number") return a - b;
    if (typeof a === "number") return -1;
    if (typeof b === "number") return 1;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) { return dir * cmp(key(r1.cells[col]), key(r2.cells[col])); });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });

  // Table filters: a text box, and a drop-down per column named in data-filter-cols.
  document.querySelectorAll("div.filter").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    if (!table) return;
    var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (h) { return h.textContent.trim(); });
    var text = box.querySelector("input.filter-text");
    var selects = [];
    (table.getAttribute("data-filter-cols") || "").split(",").forEach(function (name) {
      name = name.trim();
      var col = heads.indexOf(name);
      if (col < 0) return;
      var vals = {};
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) { if (r.cells[col]) vals[r.cells[col].textContent.trim()] = true; });
      var label = document.createElement("label");
      label.textContent = name + " ";
      var sel = document.createElement("select");
      sel.setAttribute("data-col", String(col));
      var all = document.createElement("option");
      all.value = ""; all.textContent = "all";
      sel.appendChild(all);
      Object.keys(vals).sort().forEach(function (v) {
        var o = document.createElement("option");
        o.value = v; o.textContent = v || "(none)";
        sel.appendChild(o);
      });
      label.appendChild(sel);
      box.appendChild(label);
      selects.push(sel);
    });
    function apply() {
      var q = (text.value || "").toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var ok = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
        selects.forEach(function (s) {
          var c = r.cells[Number(s.getAttribute("data-col"))];
          if (s.value !== "" && (!c || c.textContent.trim() !== s.value)) ok = false;
        });
        r.hidden = !ok;
      });
    }
    text.addEventListener("input", apply);
    selects.forEach(function (s) { s.addEventListener("change", apply); });
  });

  // Charts: ECharts options from the page, tooltips from the per-category
  // texts (with units), dark labels, and a redraw whenever the page or a
  // chart's container changes size.
  if (typeof echarts === "undefined") return;
  var TEXT = "#1b1f24";
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function data(cls, id) {
    var el = document.querySelector("script." + cls + '[data-for="' + id + '"]');
    try { return el ? JSON.parse(el.textContent) : null; } catch (e) { return null; }
  }
  var charts = [];
  document.querySelectorAll(".chart-box").forEach(function (el) {
    var opt = data("chart-opt", el.id);
    if (!opt) return;
    var tips = data("chart-tips", el.id) || [];
    var unit = el.getAttribute("data-unit") || "";
    opt.textStyle = { color: TEXT };
    opt.tooltip = opt.tooltip || {};
    var yAxis = [].concat(opt.yAxis || [])[0]; // go-echarts writes the axes as lists
    var cats = yAxis && yAxis.data;
    if (tips.length && cats) {
      opt.tooltip.formatter = function (ps) {
        var p = Array.isArray(ps) ? ps[0] : ps;
        var i = cats.indexOf(p.axisValue !== undefined ? p.axisValue : p.name);
        return i >= 0 && tips[i] ? esc(tips[i]) : esc(p.name);
      };
    } else if (unit) {
      opt.tooltip.valueFormatter = function (v) { return v === null || v === undefined || v === "-" ? "—" : Number(v).toFixed(1) + " " + unit; };
    }
    fitTitle(opt, el);
    var c = echarts.init(el, null, { renderer: "canvas" });
    c.setOption(opt);
    charts.push(c);
  });
  // A title wraps at its chart's width, not at a fixed one.
  function fitTitle(opt, el) {
    if (opt.title && opt.title.textStyle) opt.title.textStyle.width = Math.max(160, el.clientWidth - 24);
  }
  function resizeAll() {
    charts.forEach(function (c) {
      var el = c.getDom();
      if (el && el.clientWidth) c.setOption({ title: { textStyle: { width: Math.max(160, el.clientWidth - 24) } } });
      c.resize();
    });
  }
  window.addEventListener("resize", resizeAll);
  if (typeof ResizeObserver !== "undefined") {
    var ro = new ResizeObserver(function (entries) {
      entries.forEach(function (e) {
        var c = echarts.getInstanceByDom(e.target);
        if (!c) return;
        if (e.target.clientWidth) c.setOption({ title: { textStyle: { width: Math.max(160, e.target.clientWidth - 24) } } });
        c.resize();
      });
    });
    document.querySelectorAll(".chart-box").forEach(function (el) { ro.observe(el); });
  }
  window.rexmleCharts = charts;
  window.rexmleResize = resizeAll;
})();
