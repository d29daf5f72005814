/* ffsite: the model filters.  The page's stylesheet of filters (ffsite/site/filters.py)
   hides the rows a menu choice leaves out, with or without this script; this script keeps
   the choices in the URL (?org=Anthropic&weights=open&from=2024&to=2025&dataset=...),
   restores them from a shared link and says how many models are left.  Only textContent
   is read or set. */
(function () {
  "use strict";

  var form = document.querySelector(".model-filter form");
  if (!form) { return; }
  var fold = form.closest("details");
  var shared = window.ffsite;
  var params = shared ? shared.params : new URLSearchParams(window.location.search);
  var menus = Array.prototype.slice.call(form.querySelectorAll("select"));
  var count = form.querySelector(".filter-count");
  var summary = fold ? fold.querySelector(".filter-summary") : null;

  /* Organisations and datasets go in the URL by name (a link reads well and survives a
     rebuild that renumbers them); weights and years by value. */
  var byName = { org: true, dataset: true };

  function optionFor(select, wanted) {
    var options = select.options;
    for (var i = 0; i < options.length; i++) {
      var value = byName[select.name] ? options[i].textContent : options[i].value;
      if (i > 0 && value === wanted) { return i; }
    }
    return 0;
  }

  function visible(element) { return element.getClientRects().length > 0; }

  function report() {
    var chosen = [];
    menus.forEach(function (select) {
      if (select.selectedIndex > 0) {
        chosen.push(select.options[select.selectedIndex].textContent);
        var text = byName[select.name] ? select.options[select.selectedIndex].textContent
                                       : select.value;
        params.set(select.name, text);
      } else {
        params.delete(select.name);
      }
    });
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.data tr.m"));
    var tables = Array.prototype.slice.call(document.querySelectorAll("table.data"))
      .filter(function (table) { return table.querySelector("tr.m"); });
    if (count) {
      var shown = rows.filter(visible).length;
      count.textContent = chosen.length
        ? shown + " of " + rows.length + " model rows shown in " + tables.length + " tables" : "";
    }
    if (summary) { summary.textContent = chosen.length ? "· " + chosen.join(" · ") : ""; }
    if (shared) { shared.saveState(); }
  }

  menus.forEach(function (select) {
    var wanted = params.get(select.name);
    if (wanted) { select.selectedIndex = optionFor(select, wanted); }
    select.addEventListener("change", report);
  });
  if (menus.some(function (select) { return select.selectedIndex > 0; })) {
    if (fold) { fold.open = true; }
    report();
  }
}());
