/* ffsite: sortable tables, the trait filter and charts.  The view (sort, filter, compared
   models) lives in the URL query, so a link reproduces it.  Text from data is only ever
   set with textContent. */
(function () {
  "use strict";

  var params = new URLSearchParams(window.location.search);

  function saveState() {
    var query = params.toString();
    var url = (query ? "?" + query : window.location.pathname) + window.location.hash;
    try {
      window.history.replaceState(null, "", url);
    } catch (error) {
      /* Some browsers refuse for file:// pages; the view still works. */
    }
  }

  /* ------------------------------------------------------------------ sorting */

  function cellValue(cell, numeric) {
    if (!cell) { return null; }
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent.trim();
    if (!numeric) { return raw.toLowerCase(); }
    var value = parseFloat(raw);
    return isNaN(value) ? null : value;
  }

  function sortTable(table, header, direction) {
    var headers = table.tHead.rows[0].cells;
    var index = Array.prototype.indexOf.call(headers, header);
    var numeric = header.getAttribute("data-type") === "num";
    var body = table.tBodies[0];
    var sign = direction === "ascending" ? 1 : -1;
    var keyed = Array.prototype.map.call(body.rows, function (row, position) {
      return { row: row, position: position, value: cellValue(row.cells[index], numeric) };
    });
    keyed.sort(function (a, b) {
      var aMissing = a.value === null || a.value === "";
      var bMissing = b.value === null || b.value === "";
      if (aMissing || bMissing) {  /* blanks last, whatever the direction */
        return aMissing === bMissing ? a.position - b.position : (aMissing ? 1 : -1);
      }
      if (a.value < b.value) { return -sign; }
      if (a.value > b.value) { return sign; }
      return a.position - b.position;
    });
    keyed.forEach(function (item) { body.appendChild(item.row); });
    Array.prototype.forEach.call(headers, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", direction);
  }

  function findHeader(table, key) {
    var headers = table.tHead.rows[0].cells;
    for (var i = 0; i < headers.length; i++) {
      if (headers[i].getAttribute("data-key") === key) { return headers[i]; }
    }
    return null;
  }

  /* The URL keeps "sort-<table id>=<asc|desc>:<column key>". */
  function restoreSort(table) {
    var saved = params.get("sort-" + table.id);
    if (!saved) { return; }
    var split = saved.indexOf(":");
    var header = findHeader(table, saved.slice(split + 1));
    var direction = saved.slice(0, split) === "asc" ? "ascending" : "descending";
    if (split > 0 && header) { sortTable(table, header, direction); }
  }

  function setUpSorting(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
      var button = header.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        var current = header.getAttribute("aria-sort");
        var numeric = header.getAttribute("data-type") === "num";
        var direction = current ? (current === "ascending" ? "descending" : "ascending")
                                : (numeric ? "descending" : "ascending");
        sortTable(table, header, direction);
        params.set("sort-" + table.id,
                   (direction === "ascending" ? "asc" : "desc") + ":" + header.getAttribute("data-key"));
        saveState();
      });
    });
    restoreSort(table);
  }

  /* ------------------------------------------------------------ trait filter */

  function setUpFilter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var status = input.parentNode.querySelector(".filter-status");
    if (!table) { return; }
    var headers = table.tHead.rows[0].cells;
    function apply() {
      var query = input.value.trim().toLowerCase();
      var shown = 0, total = 0;
      for (var i = 0; i < headers.length; i++) {
        if (!headers[i].classList.contains("v")) { continue; }
        total += 1;
        var text = (headers[i].textContent + " " + (headers[i].getAttribute("title") || "")).toLowerCase();
        var hide = query !== "" && text.indexOf(query) < 0;
        if (!hide) { shown += 1; }
        headers[i].hidden = hide;
        for (var r = 0; r < table.tBodies[0].rows.length; r++) {
          var cell = table.tBodies[0].rows[r].cells[i];
          if (cell) { cell.hidden = hide; }
        }
      }
      if (status) { status.textContent = query ? shown + " of " + total + " traits shown" : ""; }
      if (query) { params.set("traits", input.value.trim()); } else { params.delete("traits"); }
      saveState();
    }
    input.value = params.get("traits") || "";
    input.addEventListener("input", apply);
    if (input.value) { apply(); }
  }

  /* ------------------------------------------------------------------ charts */

  function embed(target, spec) {
    if (!window.vegaEmbed) { return Promise.resolve(null); }
    return window.vegaEmbed(target, spec, { renderer: "svg", actions: false, ast: true }).catch(function (error) {
      target.textContent = "The chart could not be drawn (" + error.message + "); the table has the numbers.";
    });
  }

  function embedCharts() {
    document.querySelectorAll("script.chart-spec").forEach(function (script) {
      var target = document.getElementById(script.getAttribute("data-for"));
      var spec = JSON.parse(script.textContent);
      if (target && spec.data && spec.data.values) { embed(target, spec); }
    });
  }

  /* ------------------------------------------------- folded sections (details) */

  /* A link to a folded example ("see example") opens it: the target is the element with
     the id, a <details> inside it, or the <details> around it. */
  function openLinkedDetails() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) { return; }
    var fold = target.tagName === "DETAILS" ? target
      : (target.querySelector(":scope > details") || target.closest("details"));
    if (fold && !fold.open) {
      fold.open = true;
      target.scrollIntoView();
    }
  }

  window.addEventListener("hashchange", openLinkedDetails);
  openLinkedDetails();
  document.querySelectorAll("table.sortable").forEach(setUpSorting);
  document.querySelectorAll("input[data-table]").forEach(setUpFilter);
  embedCharts();

  window.ffsite = { params: params, saveState: saveState, embed: embed,
                    sortTable: sortTable, restoreSort: restoreSort };
}());
