/* ffsite: the home page's model search.  Typing hides the rows of the model tables
   (data-model-tables: their ids) whose model name, id and organisation do not all
   contain the words typed; the query is kept in the URL (?model=...), so a link
   reproduces the view.  Only textContent is read or set. */
(function () {
  "use strict";

  var input = document.getElementById("model-search");
  if (!input) { return; }
  input.parentNode.hidden = false;  /* it works: show it */
  var status = input.parentNode.querySelector(".search-status");
  var tables = (input.getAttribute("data-model-tables") || "").split(/\s+/)
    .map(function (id) { return document.getElementById(id); })
    .filter(function (table) { return table && table.tBodies.length; });
  /* site.js (loaded first) owns the URL query; share it, so sorting keeps the search. */
  var shared = window.ffsite;
  var params = shared ? shared.params : new URLSearchParams(window.location.search);

  function columnIndex(table, key) {
    var headers = table.tHead.rows[0].cells;
    for (var i = 0; i < headers.length; i++) {
      if (headers[i].getAttribute("data-key") === key) { return i; }
    }
    return -1;
  }

  /* What a row answers to: its model's name (the row header), the page it links to
     (the model's id) and its organisation. */
  function haystack(row, organisation) {
    var parts = [row.cells[0].textContent];
    var link = row.cells[0].querySelector("a");
    if (link) {
      parts.push(decodeURIComponent(link.getAttribute("href").split("/").pop().replace(/\.html$/, "")));
    }
    if (organisation >= 0 && row.cells[organisation]) { parts.push(row.cells[organisation].textContent); }
    return parts.join(" ").toLowerCase();
  }

  function save(query) {
    if (query) { params.set("model", query); } else { params.delete("model"); }
    if (shared) { shared.saveState(); return; }
    var text = params.toString();
    try {
      window.history.replaceState(null, "", (text ? "?" + text : window.location.pathname) + window.location.hash);
    } catch (error) {
      /* file:// pages may refuse; the filter still works. */
    }
  }

  function apply() {
    var query = input.value.trim();
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0, total = 0;
    tables.forEach(function (table) {
      var organisation = columnIndex(table, "organisation");
      var rows = shared ? shared.bodyRows(table) : Array.prototype.slice.call(table.tBodies[0].rows);
      table.classList.toggle("searched", words.length > 0);  /* folded rows show too */
      rows.forEach(function (row) {
        var text = haystack(row, organisation);
        var match = words.every(function (word) { return text.indexOf(word) >= 0; });
        row.hidden = !match;
        total += 1;
        if (match) { shown += 1; }
      });
    });
    if (status) {
      status.textContent = words.length ? shown + " of " + total + " table rows match" : "";
    }
    save(query);
  }

  input.value = params.get("model") || "";
  input.addEventListener("input", apply);
  if (input.value) { apply(); }
}());
