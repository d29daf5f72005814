/* The compare page: two models side by side on every dataset and judge they share.  The
   page holds an index (#compare-index: every model, every section and its models); a
   section's numbers are a JSON file fetched when both chosen models are in it.  Each
   shared section gets a table and a chart of the differences, drawn here with the
   page's own elements (no chart library).  The chosen models live in the URL
   (?a=...&b=...).  Text from data is only ever set with textContent. */
(function () {
  "use strict";

  var indexElement = document.getElementById("compare-index");
  if (!indexElement || !window.ffsite) { return; }
  var INDEX = JSON.parse(indexElement.textContent);
  var selectA = document.getElementById("model-a");
  var selectB = document.getElementById("model-b");
  var holder = document.getElementById("compare-sections");
  var status = document.getElementById("compare-status");
  var params = window.ffsite.params;
  var files = {};
  var latest = 0;

  function el(tag, text, className) {
    var element = document.createElement(tag);
    if (text !== undefined && text !== null) { element.textContent = text; }
    if (className) { element.className = className; }
    return element;
  }

  function choose(select, wanted) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === wanted) { select.selectedIndex = i; return true; }
    }
    return false;
  }

  function load(path) {
    if (!files[path]) {
      files[path] = fetch(path).then(function (response) {
        if (!response.ok) { throw new Error(path + ": HTTP " + response.status); }
        return response.json();
      });
    }
    return files[path];
  }

  // A number as the server writes it: a sign for strengths and differences ("+0.12",
  // a value that rounds to zero is +0.00); thousands apart with commas.
  function format(value, digits, signed) {
    if (value === null || value === undefined || isNaN(value)) { return "–"; }
    var text = Math.abs(value).toFixed(digits).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    if (!signed) { return (value < 0 && Number(Math.abs(value).toFixed(digits)) !== 0 ? "-" : "") + text; }
    return (value < 0 && Number(Math.abs(value).toFixed(digits)) !== 0 ? "-" : "+") + text;
  }

  function interval(low, high, digits, signed) {
    if (low === null || high === null || low === undefined || high === undefined) { return ""; }
    // A narrow interval gets another digit rather than read "+0.00 to +0.00".
    var d = format(low, digits, signed) === format(high, digits, signed) ? digits + 1 : digits;
    return format(low, d, signed) + " to " + format(high, d, signed);
  }

  // Half-width of a pair's interval: pairs (i < j) of the section's models, row by row,
  // in 1/scale units; each trait's row is base64 of little-endian unsigned integers.
  function unpack(data) {
    if (data.unpacked || !data.halfwidth) { return data.unpacked; }
    var size = data.halfwidth_bytes || 1;
    data.unpacked = data.halfwidth.map(function (row) {
      var raw = atob(row), values = new Array(raw.length / size);
      for (var v = 0; v < values.length; v++) {
        values[v] = raw.charCodeAt(v * size) + (size === 2 ? raw.charCodeAt(v * size + 1) * 256 : 0);
      }
      return values;
    });
    return data.unpacked;
  }

  function halfwidth(section, data, trait, i, j) {
    var rows = unpack(data);
    if (!rows) {  // independent models: their own intervals combined
      var a = (data.high[i][trait] - data.low[i][trait]) / 2;
      var b = (data.high[j][trait] - data.low[j][trait]) / 2;
      return Math.sqrt(a * a + b * b);
    }
    if (i > j) { var t = i; i = j; j = t; }
    var n = section.models.length;
    return rows[trait][i * (2 * n - i - 1) / 2 + (j - i - 1)] / data.scale;
  }

  function rowsOf(section, data, a, b) {
    var i = section.models.indexOf(a), j = section.models.indexOf(b);
    var rows = [];
    data.traits.forEach(function (trait, k) {
      var first = data.value[i][k], second = data.value[j][k];
      var row = { label: trait[0], slug: trait[1], a: first, b: second,
                  aLow: data.low[i][k], aHigh: data.high[i][k],
                  bLow: data.low[j][k], bHigh: data.high[j][k], difference: null };
      if (first !== null && second !== null) {
        var h = halfwidth(section, data, k, i, j);
        row.difference = first - second;
        row.low = row.difference - h;
        row.high = row.difference + h;
        row.sure = row.low > 0 || row.high < 0;  // the interval excludes 0
      }
      rows.push(row);
    });
    rows.sort(function (x, y) {  // the largest differences first
      var dx = x.difference === null ? -1 : Math.abs(x.difference);
      var dy = y.difference === null ? -1 : Math.abs(y.difference);
      return dy - dx;
    });
    return rows;
  }

  // The differences as dots with their intervals on one axis around zero: a chart made
  // of the page's own elements (hidden from screen readers: the table has the numbers).
  function chart(section, rows, names) {
    var shown = rows.filter(function (r) { return r.difference !== null; });
    var reach = 0;
    shown.forEach(function (r) { reach = Math.max(reach, Math.abs(r.low), Math.abs(r.high)); });
    reach = reach || 1;
    var figure = el("div", null, "forest");
    figure.setAttribute("aria-hidden", "true");
    figure.appendChild(el("p", "Each dot: the difference, " + names[0] + " minus " + names[1] +
                          " (right of 0: " + names[0] + " higher), with its 95% interval.",
                          "forest-caption"));
    function at(value) { return (50 + 50 * value / reach).toFixed(2) + "%"; }
    shown.forEach(function (r) {
      var line = el("div", null, "forest-row" + (r.sure ? " sure" : " unsure"));
      line.appendChild(el("span", r.label, "forest-label"));
      var track = el("span", null, "forest-track");
      var zero = el("span", null, "forest-zero");
      zero.style.left = "50%";
      var bar = el("span", null, "forest-bar");
      bar.style.left = at(Math.min(r.low, r.high));
      bar.style.width = (50 * Math.abs(r.high - r.low) / reach).toFixed(2) + "%";
      var dot = el("span", null, "forest-dot " + (r.difference >= 0 ? "pos" : "neg"));
      dot.style.left = at(r.difference);
      track.appendChild(zero);
      track.appendChild(bar);
      track.appendChild(dot);
      line.appendChild(track);
      figure.appendChild(line);
    });
    var axis = el("div", null, "forest-row forest-axis");
    axis.appendChild(el("span", "", "forest-label"));
    var scale = el("span", null, "forest-track");
    [["← " + names[1] + " more", "left"], ["0", "middle"], [names[0] + " more →", "right"]]
      .forEach(function (label) { scale.appendChild(el("span", label[0], "forest-tick " + label[1])); });
    axis.appendChild(scale);
    figure.appendChild(axis);
    return figure;
  }

  function cell(tag, text, value) {
    var element = el(tag, text);
    if (value !== undefined && value !== null) { element.setAttribute("data-v", String(value)); }
    return element;
  }

  function withInterval(element, low, high, digits, signed) {
    var text = interval(low, high, digits, signed);
    if (text) { element.appendChild(el("span", text, "ci")); }
    return element;
  }

  function table(section, number, rows, names) {
    var wrap = el("div", null, "table-wrap");
    var t = el("table", null, "data sortable");
    t.id = "compare-" + section.id;
    var caption = el("caption");
    caption.appendChild(el("span", section.title + ": " + section.what + ", the two models " +
                           "and their difference with 95% intervals", "cap"));
    t.appendChild(caption);
    var head = el("thead"), tr = el("tr");
    [["trait", "Trait", false, ""], ["difference", "Difference (" + section.unit + ")", true,
      "first − second"], ["a", names[0], true, ""], ["b", names[1], true, ""]].forEach(function (c) {
      var th = el("th");
      th.setAttribute("scope", "col");
      th.setAttribute("data-key", c[0]);
      if (c[2]) {
        th.setAttribute("data-type", "num");
        /* A numeric header keeps to two lines: half its name wide, and the sort arrow. */
        th.style.minWidth = Math.ceil(c[1].length / 2 + 4) + "ch";
      }
      var button = el("button");
      button.type = "button";
      button.appendChild(el("span", c[1], "label"));
      if (c[3]) { button.appendChild(el("span", "(" + c[3] + ")", "cue")); }
      th.appendChild(button);
      tr.appendChild(th);
    });
    head.appendChild(tr);
    t.appendChild(head);
    var body = el("tbody");
    var digits = section.digits, signed = section.signed;
    rows.forEach(function (r) {
      var line = el("tr"), name = el("th");
      name.setAttribute("scope", "row");
      if (r.slug) {
        var link = el("a", r.label);
        link.setAttribute("href", "traits/" + encodeURIComponent(r.slug) + ".html");
        name.appendChild(link);
      } else { name.textContent = r.label; }
      line.appendChild(name);
      // The difference first: on a phone it stays in view beside the trait.
      var difference = cell("td", format(r.difference, digits, true), r.difference);
      if (r.difference !== null) {
        withInterval(difference, r.low, r.high, digits, true);
        difference.appendChild(el("span", r.sure ? "distinguishable from 0" :
                                  "not distinguishable from 0",
                                  "verdict " + (r.sure ? "sure" : "unsure")));
      }
      line.appendChild(difference);
      line.appendChild(withInterval(cell("td", format(r.a, digits, signed), r.a), r.aLow, r.aHigh, digits, signed));
      line.appendChild(withInterval(cell("td", format(r.b, digits, signed), r.b), r.bLow, r.bHigh, digits, signed));
      body.appendChild(line);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    return wrap;
  }

  function sectionBlock(section, number, data, a, b, names) {
    var block = el("section", null, "compare-section");
    block.id = "section-" + section.id;
    block.appendChild(el("h2", section.title));
    block.appendChild(el("p", section.what + "; judge: " + section.judge + ". " + section.note, "note"));
    [[a, names[0]], [b, names[1]]].forEach(function (pair) {
      var code = INDEX.models.indexOf(pair[0]);
      if ((section.selfJudged || []).indexOf(code) >= 0) {
        block.appendChild(el("p", pair[1] + " is one of this dataset's judges: here it " +
                             "also rated its own answers.", "note self-judged"));
      }
      if ((section.variantJudged || []).indexOf(code) >= 0) {
        block.appendChild(el("p", pair[1] + " is a variant of one of this dataset's judges " +
                             "(the same model in another setting): the judge rated answers " +
                             "its own weights wrote.", "note self-judged"));
      }
    });
    var rows = rowsOf(section, data, a, b);
    block.appendChild(chart(section, rows, names));
    block.appendChild(table(section, number, rows, names));
    return block;
  }

  function render() {
    var a = selectA.value, b = selectB.value;
    params.set("a", a);
    params.set("b", b);
    window.ffsite.saveState();
    var ia = INDEX.models.indexOf(a), ib = INDEX.models.indexOf(b);
    var names = [INDEX.names[ia], INDEX.names[ib]];
    var shared = [], alone = [];
    INDEX.sections.forEach(function (section, number) {
      var hasA = section.models.indexOf(ia) >= 0, hasB = section.models.indexOf(ib) >= 0;
      if (hasA && hasB) { shared.push(number); } else if (hasA || hasB) {
        alone.push(section.title + " (" + (hasA ? names[0] : names[1]) + " only)");
      }
    });
    var request = ++latest;
    holder.setAttribute("aria-busy", "true");
    Promise.all(shared.map(function (number) { return load(INDEX.sections[number].file); }))
      .then(function (documents) {
        if (request !== latest) { return; }
        holder.replaceChildren();
        documents.forEach(function (data, k) {
          var number = shared[k], section = INDEX.sections[number];
          // The section's own model positions, for its rows of numbers.
          var local = { models: section.models.map(function (m) { return INDEX.models[m]; }) };
          Object.keys(section).forEach(function (key) { if (key !== "models") { local[key] = section[key]; } });
          holder.appendChild(sectionBlock(local, number, data, a, b, names));
        });
        holder.querySelectorAll("table.sortable").forEach(function (t) {
          window.ffsite.setUpSorting(t);
        });
        var words = a === b ? "Pick two different models." :
          shared.length ? names[0] + " and " + names[1] + " share " + shared.length +
            " dataset" + (shared.length === 1 ? "" : "s") + "." :
          names[0] + " and " + names[1] + " share no dataset: nothing to compare.";
        if (alone.length) { words += " Only one of them: " + alone.join("; ") + "."; }
        status.textContent = words;
        holder.removeAttribute("aria-busy");
      }).catch(function (error) {
        holder.removeAttribute("aria-busy");
        status.textContent = error.message + "; the downloads have every number.";
      });
  }

  if (!choose(selectA, params.get("a"))) { choose(selectA, INDEX.first); }
  if (!choose(selectB, params.get("b"))) { choose(selectB, INDEX.second); }
  selectA.addEventListener("change", render);
  selectB.addEventListener("change", render);
  render();
}());
