/* The compare page: two models' strengths per trait and their difference, from the
   JSON in the page; the chosen models live in the URL (?a=...&b=...). */
(function () {
  "use strict";

  var dataElement = document.getElementById("compare-data");
  if (!dataElement || !window.ffsite) { return; }
  var data = JSON.parse(dataElement.textContent);
  var selectA = document.getElementById("model-a");
  var selectB = document.getElementById("model-b");
  var table = document.getElementById("compare");
  var chart = document.getElementById("compare-chart");
  var specElement = document.querySelector('script.chart-spec[data-for="compare-chart"]');
  var params = window.ffsite.params;

  function choose(select, wanted) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === wanted) { select.selectedIndex = i; return; }
    }
  }

  function format(value) {
    // As the server's `signed`: a sign always, and a value that rounds to zero is +0.00.
    if (value === null) return "–";
    const text = Math.abs(value).toFixed(2);
    return (value < 0 && text !== "0.00" ? "-" : "+") + text;
  }

  function cell(tag, text, value) {
    var element = document.createElement(tag);
    element.textContent = text;
    if (value !== undefined && value !== null) { element.setAttribute("data-v", String(value)); }
    return element;
  }

  function render() {
    var a = selectA.value, b = selectB.value;
    params.set("a", a);
    params.set("b", b);
    window.ffsite.saveState();
    document.getElementById("label-a").textContent = a;
    document.getElementById("label-b").textContent = b;

    var rows = [];
    data.traits.forEach(function (trait, i) {
      var first = data.strength[a][i], second = data.strength[b][i];
      var difference = first === null || second === null ? null : first - second;
      rows.push({ name: trait.label, slug: trait.slug, a: first, b: second, difference: difference });
    });
    rows.sort(function (x, y) {
      var dx = x.difference === null ? -1 : Math.abs(x.difference);
      var dy = y.difference === null ? -1 : Math.abs(y.difference);
      return dy - dx;
    });

    var body = table.tBodies[0];
    while (body.firstChild) { body.removeChild(body.firstChild); }
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      var name = document.createElement("th");
      name.setAttribute("scope", "row");
      var link = document.createElement("a");
      link.setAttribute("href", "traits/" + encodeURIComponent(row.slug) + ".html");
      link.textContent = row.name;
      name.appendChild(link);
      tr.appendChild(name);
      tr.appendChild(cell("td", format(row.a), row.a));
      tr.appendChild(cell("td", format(row.b), row.b));
      tr.appendChild(cell("td", format(row.difference), row.difference));
      body.appendChild(tr);
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
      header.removeAttribute("aria-sort");
    });
    window.ffsite.restoreSort(table);

    if (chart && specElement) {
      var spec = JSON.parse(specElement.textContent);
      spec.data = { values: rows.filter(function (row) { return row.difference !== null; }) };
      spec.height = spec.usermeta.step * Math.max(spec.data.values.length, 1);
      window.ffsite.embed(chart, spec);
    }
  }

  choose(selectA, params.get("a"));
  choose(selectB, params.get("b"));
  selectA.addEventListener("change", render);
  selectB.addEventListener("change", render);
  render();
}());
