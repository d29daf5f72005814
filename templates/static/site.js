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

  /* Every body row of a table: a long table keeps the rows after its first ones in a
     second, folded body (tbody.more). */
  function bodyRows(table) {
    var rows = [];
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.push.apply(rows, body.rows);
    });
    return rows;
  }

  function sortTable(table, header, direction) {
    var headers = table.tHead.rows[0].cells;
    var index = Array.prototype.indexOf.call(headers, header);
    var numeric = header.getAttribute("data-type") === "num";
    var first = table.tBodies[0];
    var shown = first.rows.length;  /* the folded table shows as many rows as before */
    var sign = direction === "ascending" ? 1 : -1;
    var keyed = bodyRows(table).map(function (row, position) {
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
    keyed.forEach(function (item, position) {
      (position < shown || table.tBodies.length < 2 ? first : table.tBodies[1]).appendChild(item.row);
    });
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
  /* Charts arrive drawn (SVG made at build time).  A chart with menus was drawn for
     every choice: the page holds the first; another choice's two drawings (wide and
     narrow) are small files fetched when the reader picks it, so no choice needs the
     chart library.  The choice is kept in the address (?<chart id>.<menu>=<option>). */

  /* A drawing file made by the build (checked there: drawing elements only), as an
     element of this page. */
  function fetchDrawing(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) { throw new Error("the drawing " + url + " did not load"); }
      return response.text();
    }).then(function (text) {
      var svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
      if (!svg || svg.nodeName.toLowerCase() !== "svg") { throw new Error("not a drawing: " + url); }
      return document.importNode(svg, true);
    });
  }

  function buildMenu(menu, key) {
    var label = document.createElement("label");
    var name = document.createElement("span");
    var select = document.createElement("select");
    name.className = "chart-menu-name";
    name.textContent = menu.label || menu.name;
    menu.options.forEach(function (value, index) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = menu.labels[index];
      select.appendChild(option);
    });
    var wanted = params.get(key);
    select.value = wanted !== null && menu.options.indexOf(wanted) >= 0 ? wanted : menu.value;
    label.appendChild(name);
    label.appendChild(document.createTextNode(" "));
    label.appendChild(select);
    return { label: label, select: select };
  }

  function setUpMenuChart(target, info) {
    var holder = document.createElement("div");
    var status = document.createElement("p");
    var selects = [];
    var keys = [];
    var wide = target.querySelector(".chart-wide");
    var narrow = target.querySelector(".chart-narrow");
    if (!wide || !narrow) { return; }
    holder.className = "chart-menus";
    status.className = "chart-status note";
    status.setAttribute("aria-live", "polite");
    info.menus.forEach(function (menu) {
      var key = target.id + "." + menu.name;
      var built = buildMenu(menu, key);
      keys.push(key);
      selects.push(built.select);
      holder.appendChild(built.label);
    });
    target.insertBefore(holder, target.firstChild);
    target.appendChild(status);
    var drawn = {};  /* choice -> [wide, narrow] drawings already in hand */
    drawn[info.first] = [wide.firstElementChild, narrow.firstElementChild];
    var shown = info.first;
    var latest = 0;

    function chosen() {
      return selects.map(function (select) { return select.value; }).join("\u001f");
    }

    function put(choice, pair) {
      wide.replaceChildren(pair[0]);
      narrow.replaceChildren(pair[1]);
      shown = choice;
      status.textContent = "";
      target.removeAttribute("aria-busy");
    }

    function show() {
      var choice = chosen();
      info.menus.forEach(function (menu, index) {
        if (selects[index].value === menu.value) { params.delete(keys[index]); }
        else { params.set(keys[index], selects[index].value); }
      });
      saveState();
      var request = ++latest;
      if (choice === shown) { return; }
      if (drawn[choice]) { put(choice, drawn[choice]); return; }
      var files = info.choices[choice];
      if (!files) {
        status.textContent = "No numbers for this choice; the drawing shows the one before.";
        return;
      }
      target.setAttribute("aria-busy", "true");
      Promise.all([fetchDrawing(files.wide), fetchDrawing(files.narrow)]).then(function (pair) {
        drawn[choice] = pair;
        if (request === latest) { put(choice, pair); }
      }).catch(function (error) {
        target.removeAttribute("aria-busy");
        status.textContent = error.message + "; the table has the numbers.";
      });
    }

    selects.forEach(function (select) { select.addEventListener("change", show); });
    show();
  }

  function setUpCharts() {
    document.querySelectorAll("script.chart-choices").forEach(function (script) {
      var target = document.getElementById(script.getAttribute("data-for"));
      if (target && target.getAttribute("data-interactive") === "menus") {
        setUpMenuChart(target, JSON.parse(script.textContent));
      }
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

  /* ------------------------------------------------------- tables that fit */
  /* A table no wider than its column needs no box of its own: its wrapper stops being a
     scroll container, so the header row sticks to the top of the window while the page
     scrolls.  A wider table keeps scrolling sideways in its wrapper. */
  function markFitting() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      var table = wrap.querySelector("table");
      wrap.classList.toggle("fits", !!table && table.offsetWidth <= wrap.clientWidth + 1);
    });
  }

  /* ------------------------------------------------------ phone navigation */
  /* The main navigation is one row that scrolls sideways on a phone: bring the current
     page's entry into view.  A card list's links (nav.glance-nav) scroll its row of cards
     to the card instead of jumping the page down to it. */
  function showCurrentPage() {
    var current = document.querySelector('header.site nav a[aria-current="page"]');
    var nav = current ? current.closest("nav") : null;
    if (!nav || nav.scrollWidth <= nav.clientWidth) { return; }
    var shift = current.getBoundingClientRect().left - nav.getBoundingClientRect().left;
    nav.scrollLeft += shift - (nav.clientWidth - current.offsetWidth) / 2;
  }

  function setUpCardLinks(list) {
    list.addEventListener("click", function (event) {
      var link = event.target.closest("a");
      var card = link ? document.getElementById(link.getAttribute("href").slice(1)) : null;
      var row = card ? card.parentElement : null;
      if (!row || row.scrollWidth <= row.clientWidth) { return; }  /* a grid: jump */
      event.preventDefault();
      row.scrollTo({ left: card.offsetLeft - row.offsetLeft, behavior: "smooth" });
    });
  }

  window.addEventListener("hashchange", openLinkedDetails);
  showCurrentPage();
  document.querySelectorAll("nav.glance-nav").forEach(setUpCardLinks);
  markFitting();
  window.addEventListener("resize", markFitting);
  openLinkedDetails();
  document.querySelectorAll("table.sortable").forEach(setUpSorting);
  document.querySelectorAll("input[data-table]").forEach(setUpFilter);
  setUpCharts();

  window.ffsite = { params: params, saveState: saveState, sortTable: sortTable,
                    restoreSort: restoreSort, setUpSorting: setUpSorting, bodyRows: bodyRows };
}());
