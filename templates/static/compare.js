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

  function format(value, digits) {
    // As the server's `signed`: a sign always, and a value that rounds to zero is +0.00.
    if (value === null) return "–";
    const text = Math.abs(value).toFixed(digits || 2);
    return (value < 0 && Number(text) !== 0 ? "-" : "+") + text;
  }

  function cell(tag, text, value) {
    var element = document.createElement(tag);
    element.textContent = text;
    if (value !== undefined && value !== null) { element.setAttribute("data-v", String(value)); }
    return element;
  }

  // A 95% interval under its value, as the server's cells show it ("-0.38 to +0.12").
  function addInterval(element, low, high) {
    if (low === null || high === null || low === undefined || high === undefined) return;
    var line = document.createElement("span");
    line.className = "ci";
    // A narrow interval gets a third digit rather than read "+0.00 to +0.00".
    var digits = format(low) === format(high) ? 3 : 2;
    line.textContent = format(low, digits) + " to " + format(high, digits);
    element.appendChild(line);
  }

  // Half-width of the difference's interval: the pairs (i < j) of the upper triangle,
  // row by row, in thousandths; each trait's row packed as base64 of little-endian
  // unsigned integers of data.halfwidth_bytes bytes.
  var unpacked = [];
  function widths(trait) {
    if (!unpacked[trait]) {
      var raw = atob(data.halfwidth[trait]);
      var size = data.halfwidth_bytes || 1;
      var values = new Array(raw.length / size);
      for (var v = 0; v < values.length; v++) {
        values[v] = raw.charCodeAt(v * size) + (size === 2 ? raw.charCodeAt(v * size + 1) * 256 : 0);
      }
      unpacked[trait] = values;
    }
    return unpacked[trait];
  }

  function halfwidth(trait, i, j) {
    if (i === j) return 0;
    if (i > j) { var t = i; i = j; j = t; }
    var n = data.models.length;
    var k = i * (2 * n - i - 1) / 2 + (j - i - 1);
    return widths(trait)[k] / 1000;
  }

  function render() {
    var a = selectA.value, b = selectB.value;
    params.set("a", a);
    params.set("b", b);
    window.ffsite.saveState();
    [["label-a", a], ["label-b", b]].forEach(function (pair) {
      var label = document.getElementById(pair[0]);
      label.textContent = pair[1];
      /* A numeric header keeps to two lines: half its name wide, and the sort arrow. */
      label.closest("th").style.minWidth = Math.ceil(pair[1].length / 2 + 4) + "ch";
    });

    var ia = data.models.indexOf(a), ib = data.models.indexOf(b);
    var rows = [];
    data.traits.forEach(function (trait, i) {
      var first = data.strength[a][i], second = data.strength[b][i];
      var row = { name: trait.label, slug: trait.slug, a: first, b: second, difference: null,
                  aLow: data.low[a][i], aHigh: data.high[a][i],
                  bLow: data.low[b][i], bHigh: data.high[b][i] };
      if (first !== null && second !== null) {
        var h = halfwidth(i, ia, ib);
        row.difference = first - second;
        row.low = row.difference - h;
        row.high = row.difference + h;
        // Distinguishable from zero: the interval of the difference excludes 0.
        row.sure = row.low > 0 || row.high < 0;
      }
      rows.push(row);
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
      // The difference first: on a phone it stays in view beside the trait.
      var difference = cell("td", format(row.difference), row.difference);
      if (row.difference !== null) {
        addInterval(difference, row.low, row.high);
        var verdict = document.createElement("span");
        verdict.className = "verdict " + (row.sure ? "sure" : "unsure");
        verdict.textContent = row.sure ? "distinguishable from 0" : "not distinguishable from 0";
        difference.appendChild(verdict);
      }
      tr.appendChild(difference);
      var first = cell("td", format(row.a), row.a);
      addInterval(first, row.aLow, row.aHigh);
      tr.appendChild(first);
      var second = cell("td", format(row.b), row.b);
      addInterval(second, row.bLow, row.bHigh);
      tr.appendChild(second);
      body.appendChild(tr);
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
      header.removeAttribute("aria-sort");
    });
    window.ffsite.restoreSort(table);

    if (chart && specElement) { redraw(a, b, rows); }
  }

  // The chart arrives drawn for the pair the page opens on (data.drawn); another pair
  // fetches the chart library (~900 KB) once and draws live from then on.
  var drawnPair = data.drawn || [];
  var live = false;
  var latest = 0;
  function redraw(a, b, rows) {
    if (!live && a === drawnPair[0] && b === drawnPair[1]) { return; }
    var spec = JSON.parse(specElement.textContent);
    spec.data = { values: rows.filter(function (row) { return row.difference !== null; }) };
    spec.height = spec.usermeta.step * Math.max(spec.data.values.length, 1);
    var request = ++latest;
    window.ffsite.loadLibrary(chart.getAttribute("data-vega")).then(function () {
      if (request !== latest) { return null; }  // a later choice draws instead
      var target = document.createElement("div");
      target.className = "chart-live";
      chart.appendChild(target);
      return window.ffsite.embed(target, spec).then(function (result) {
        if (!result || !result.view || request !== latest) { target.remove(); return; }
        live = true;
        chart.querySelectorAll(".chart-draw, .chart-live").forEach(function (old) {
          if (old !== target) { old.remove(); }
        });
      });
    }).catch(function (error) {
      chart.setAttribute("title", error.message + "; the table has the numbers");
    });
  }

  choose(selectA, params.get("a"));
  choose(selectB, params.get("b"));
  selectA.addEventListener("change", render);
  selectB.addEventListener("change", render);
  render();
}());
