/* ffsite explorer: the Feedback Forensics views drawn from precomputed counts.
 *
 * The page carries an index (#explore-index); each dataset's counts and its datapoints
 * are JSON files fetched when first needed (docs/site-data.md describes them).  Every
 * choice lives in the URL's query, so a view can be shared and a reload restores it.
 * Data never becomes markup: every text goes in with textContent.
 */
(function () {
  "use strict";
  var indexEl = document.getElementById("explore-index");
  if (!indexEl) { return; }
  var INDEX = JSON.parse(indexEl.textContent);
  var VOTE_NAMES = ["no vote", "A", "B", "tie", "neither", "invalid", "missing"];
  var METRIC_NAMES = {strength: "Strength", relevance: "Relevance", kappa: "Cohen's kappa",
                      agreement: "Agreement"};
  var HEAT_STEPS = [0.05, 0.15, 0.3, 0.5];
  var $ = function (id) { return document.getElementById(id); };
  var form = $("explore-form"), viewerForm = $("viewer-form");
  var cache = {};  // path -> Promise of parsed JSON
  var state = {};

  // A column name cut to a readable length (the header's title holds all of it).
  function short(name) { return name.length > 40 ? name.slice(0, 39) + "…" : name; }

  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (className) { node.className = className; }
    return node;
  }

  function load(path) {
    if (!cache[path]) {
      cache[path] = fetch(path).then(function (response) {
        if (!response.ok) { throw new Error(path + ": HTTP " + response.status); }
        return response.json();
      });
    }
    return cache[path];
  }

  // ------------------------------------------------------------------ the URL

  function readURL() {
    var q = new URLSearchParams(window.location.search);
    var datasets = INDEX.datasets.map(function (d) { return d.name; });
    var d = datasets.indexOf(q.get("d"));
    if (d < 0) { d = INDEX.defaultDataset; }
    var refs = q.getAll("ref").filter(function (m) { return INDEX.models.indexOf(m) >= 0; });
    // Without a choice in the address, the dataset's own reference (or its annotator).
    if (!q.has("ref") && INDEX.datasets[d].reference !== null) {
      refs = [INDEX.datasets[d].reference];
    }
    var against = q.get("against") || INDEX.datasets[d].against;
    state = {
      against: against === "preference" ? "preference" : "models",
      refs: refs,
      d: d,
      j: q.get("j") || "",
      m: METRIC_NAMES[q.get("m")] ? q.get("m") : "strength",
      split: q.get("split") || "",
      vals: q.getAll("val"),
      target: q.get("target") || "",
      pj: q.get("pj") || "",
      pa: q.get("pa") || "", pb: q.get("pb") || "",
      vt: q.get("vt") || "", vv: q.get("vv") || "", vx: q.get("vx") || "",
      vi: Math.max(0, parseInt(q.get("vi") || "0", 10) || 0)
    };
  }

  function writeURL() {
    var q = new URLSearchParams();
    q.set("against", state.against);
    if (state.against === "preference" && state.pj) { q.set("pj", state.pj); }
    state.refs.forEach(function (m) { q.append("ref", m); });
    q.set("d", INDEX.datasets[state.d].name);
    if (state.j) { q.set("j", state.j); }
    q.set("m", state.m);
    if (state.split) { q.set("split", state.split); }
    state.vals.forEach(function (v) { q.append("val", v); });
    if (state.target) { q.set("target", state.target); }
    if (state.pa || state.pb) { q.set("pa", state.pa); q.set("pb", state.pb); }
    if (state.vt) { q.set("vt", state.vt); }
    if (state.vv) { q.set("vv", state.vv); }
    if (state.vx) { q.set("vx", state.vx); }
    if (state.vi) { q.set("vi", String(state.vi)); }
    window.history.replaceState(null, "", "?" + q.toString() + window.location.hash);
  }

  // ------------------------------------------------------------------ counts

  function addInto(sum, flat, swap) {
    for (var i = 0; i < flat.length; i += 3) {
      sum[i] += swap ? flat[i + 1] : flat[i];
      sum[i + 1] += swap ? flat[i] : flat[i + 1];
      sum[i + 2] += flat[i + 2];
    }
  }

  function zeros(n) { var a = []; for (var i = 0; i < n; i++) { a.push(0); } return a; }

  // {pair: flat triples} of split s, value v; "all" (s = 0) may be the sum of split 1.
  function pairRows(C, s, v) {
    var found = {};
    var lists = C.pc[s] !== null ? [C.pc[s][v]] : C.pc[1];
    lists.forEach(function (rows) {
      rows.forEach(function (row) {
        if (!found[row[0]]) { found[row[0]] = zeros(row.length - 1); }
        addInto(found[row[0]], row.slice(1), false);
      });
    });
    return found;
  }

  // Triples against the chosen preference annotator (rc[annotator][split][value]).
  function preferenceRow(C, s, v) {
    var j = INDEX.datasets[state.d].preferences.indexOf(state.pj);
    if (!C.rc || j < 0) { return null; }
    var rc = C.rc[j];
    if (rc[s] !== null) { return rc[s][v]; }
    var sum = zeros(3 * C.t.length);
    rc[1].forEach(function (row) { addInto(sum, row, false); });
    return sum;
  }

  // Triples from a target model's side against the pooled references, by target.
  function againstReferences(C, rows, refs) {
    var byTarget = {};
    C.p.forEach(function (pair, k) {
      var flat = rows[k];
      if (!flat) { return; }
      var aRef = refs.indexOf(pair[0]) >= 0, bRef = refs.indexOf(pair[1]) >= 0;
      if (aRef === bRef) { return; }
      var target = aRef ? pair[1] : pair[0];
      if (!byTarget[target]) { byTarget[target] = zeros(flat.length); }
      addInto(byTarget[target], flat, aRef);  // the target is second: swap
    });
    return byTarget;
  }

  function metric(a, d, n, name) {
    var valid = a + d;
    var accuracy = valid > 0 ? a / valid : 0.5;
    var relevance = n > 0 ? valid / n : NaN;
    var kappa = 2 * (accuracy - 0.5);
    if (name === "relevance") { return relevance; }
    if (name === "agreement") { return valid > 0 ? accuracy : NaN; }
    if (name === "kappa") { return n > 0 ? kappa : NaN; }
    return kappa * relevance;
  }

  var Z = 1.959963984540054;

  function wilson(k, n) {
    if (n <= 0) { return [NaN, NaN]; }
    var p = k / n, denominator = 1 + Z * Z / n;
    var centre = (p + Z * Z / (2 * n)) / denominator;
    var half = Z * Math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denominator;
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  }

  // The same approximate 95% intervals as ffsite.metrics.pairs.triple_interval.
  function interval(a, d, n, name) {
    if (name === "relevance") { return wilson(a + d, n); }
    if (name === "agreement") { return wilson(a, a + d); }
    if (name === "kappa") {
      var w = wilson(a, a + d);
      return [2 * w[0] - 1, 2 * w[1] - 1];
    }
    if (n <= 0) { return [NaN, NaN]; }
    var a1 = a + 1, d1 = d + 1, n1 = n + 2, mean = (a1 - d1) / n1;
    var half = Z * Math.sqrt(Math.max((a1 + d1) / n1 - mean * mean, 0) / n1);
    return [Math.max(-1, mean - half), Math.min(1, mean + half)];
  }

  function heat(value, finding) {
    if (isNaN(value) || !finding) { return "nf"; }
    var level = HEAT_STEPS.filter(function (s) { return Math.abs(value) >= s; }).length;
    if (level === 0) { return "h0"; }
    return (value > 0 ? "hp" : "hn") + level;
  }

  function shown(value, name) {
    if (isNaN(value)) { return "–"; }
    var text = value.toFixed(2);
    if (name === "strength" || name === "kappa") {
      text = (Math.round(value * 100) / 100 + 0).toFixed(2);
      if (text.charAt(0) !== "-") { text = "+" + text; }
    }
    return text;
  }

  // ------------------------------------------------------------------ controls

  function fill(select, options, chosen) {
    select.textContent = "";
    options.forEach(function (o) {
      var option = el("option", o[1]);
      option.value = o[0];
      option.selected = Array.isArray(chosen) ? chosen.indexOf(o[0]) >= 0 : o[0] === chosen;
      select.appendChild(option);
    });
  }

  function judgesOf(C) {
    var found = [];
    C.t.forEach(function (t) {
      var judge = INDEX.judges[INDEX.traits[t][2]];
      if (found.indexOf(judge) < 0) { found.push(judge); }
    });
    return found;
  }

  function splitIndex(ds) { return state.split ? ds.splits.indexOf(state.split) + 1 : 0; }

  function targetsOf(C) {
    var refs = refIndices(), found = {};
    C.p.forEach(function (pair) {
      var aRef = refs.indexOf(pair[0]) >= 0, bRef = refs.indexOf(pair[1]) >= 0;
      if (aRef !== bRef) { found[aRef ? pair[1] : pair[0]] = true; }
    });
    return Object.keys(found).map(Number).sort(byName);
  }

  function byName(a, b) {
    var x = INDEX.models[a].toLowerCase(), y = INDEX.models[b].toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }

  function refIndices() {
    return state.refs.map(function (m) { return INDEX.models.indexOf(m); });
  }

  function syncControls(C) {
    var ds = INDEX.datasets[state.d];
    if (ds.preferences.indexOf(state.pj) < 0) { state.pj = ds.preferences[0] || ""; }
    fill($("ex-against"), [["models", "reference model(s)"]].concat(
      ds.preferences.length ? ds.preferences.map(function (j) {
        return ["pref:" + j, "preference annotator " + j]; }) :
        [["pref:", "a preference annotator (none in this dataset)"]]),
      state.against === "models" ? "models" : "pref:" + state.pj);
    fill($("ex-refs"), INDEX.models.map(function (m) { return [m, m]; }), state.refs);
    $("ex-refs").disabled = state.against !== "models";
    fill($("ex-dataset"), INDEX.datasets.map(function (d, i) { return [String(i), d.name]; }),
         String(state.d));
    var judges = judgesOf(C);
    if (judges.indexOf(state.j) < 0) { state.j = judges.length ? judges[0] : ""; }
    fill($("ex-judge"), judges.map(function (j) { return [j, j]; }), state.j);
    $("ex-metric").value = state.m;
    if (ds.splits.indexOf(state.split) < 0) { state.split = ""; }
    fill($("ex-split"), [["", "nothing (all comparisons)"]].concat(
      ds.splits.map(function (s) { return [s, s]; })), state.split);
    var values = C.s[splitIndex(ds)][1];
    state.vals = state.vals.filter(function (v) { return values.indexOf(v) >= 0; });
    var box = $("ex-values");
    box.textContent = "";
    box.appendChild(el("legend", "Values shown"));
    box.hidden = !state.split;
    values.forEach(function (v, i) {
      var label = el("label"), input = el("input");
      input.type = "checkbox";
      input.value = v;
      input.id = "ex-val-" + i;
      input.checked = state.vals.length === 0 || state.vals.indexOf(v) >= 0;
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + v));
      box.appendChild(label);
    });
    var targets = state.against === "models" && state.split ? targetsOf(C) : [];
    if (targets.length && targets.map(function (t) { return INDEX.models[t]; })
        .indexOf(state.target) < 0) {
      state.target = INDEX.models[targets[0]];
    }
    if (!targets.length) { state.target = ""; }
    fill($("ex-target"), targets.map(function (t) {
      return [INDEX.models[t], INDEX.models[t]]; }), state.target);
    $("ex-target").hidden = $("ex-target-label").hidden = !targets.length;
  }

  function readControls() {
    var against = $("ex-against").value;
    state.against = against === "models" ? "models" : "preference";
    state.pj = against === "models" ? state.pj : against.slice(5);
    state.refs = Array.prototype.filter.call($("ex-refs").options, function (o) {
      return o.selected; }).map(function (o) { return o.value; });
    var d = parseInt($("ex-dataset").value, 10);
    if (d !== state.d) {
      // Another dataset opens on its own reference model (or its annotator), so it
      // shows numbers at once.
      state.pa = state.pb = state.vx = ""; state.split = ""; state.vals = [];
      var opened = INDEX.datasets[d];
      state.refs = opened.reference !== null ? [opened.reference] : [];
      state.against = opened.against;
      state.target = "";
    }
    state.d = d;
    state.j = $("ex-judge").value;
    state.m = $("ex-metric").value;
    var split = $("ex-split").value;
    if (split !== state.split) { state.vals = []; state.vx = ""; }
    state.split = split;
    if (state.split) {
      var boxes = $("ex-values").querySelectorAll("input");
      var checked = Array.prototype.filter.call(boxes, function (b) { return b.checked; });
      state.vals = checked.length === boxes.length ? [] :
        checked.map(function (b) { return b.value; });
    }
    state.target = $("ex-target").value;
  }

  // ------------------------------------------------------------------ the table

  function columnsOf(C) {
    var ds = INDEX.datasets[state.d], s = splitIndex(ds);
    var values = C.s[s][1];
    var wanted = values.map(function (v, i) { return i; }).filter(function (i) {
      return state.vals.length === 0 || state.vals.indexOf(values[i]) >= 0; });
    var refs = refIndices(), columns = [];
    if (state.against === "preference") {
      wanted.forEach(function (v) {
        var row = preferenceRow(C, s, v);
        if (row) { columns.push({label: values[v], flat: row, value: values[v]}); }
      });
    } else if (!state.split) {
      var byTarget = againstReferences(C, pairRows(C, 0, 0), refs);
      Object.keys(byTarget).map(Number).sort(byName).forEach(function (t) {
        columns.push({label: INDEX.models[t], flat: byTarget[t], target: t});
      });
    } else {
      var target = INDEX.models.indexOf(state.target);
      wanted.forEach(function (v) {
        var flat = againstReferences(C, pairRows(C, s, v), refs)[target];
        if (flat) { columns.push({label: values[v], flat: flat, value: values[v], target: target}); }
      });
    }
    return columns;
  }

  function caption(ds) {
    var what = METRIC_NAMES[state.m] + " of each trait of " + state.j + " in " + ds.name + ": ";
    if (state.against === "preference") {
      what += "against the preference annotator " + (state.pj || "(none)");
    } else if (state.split) {
      what += state.target + " against " + state.refs.join(" + ");
    } else {
      what += "every model against " + state.refs.join(" + ");
    }
    return what + (state.split ? ", by " + state.split : "");
  }

  function drawTable(C) {
    var ds = INDEX.datasets[state.d], wrap = $("ex-table-wrap");
    var columns = columnsOf(C);
    var traits = C.t.map(function (t, i) { return [t, i]; }).filter(function (x) {
      return INDEX.judges[INDEX.traits[x[0]][2]] === state.j; });
    wrap.textContent = "";
    var status = "";
    if (state.against === "models" && !state.refs.length) {
      status = "Choose at least one reference model.";
    } else if (state.against === "preference" && !state.pj) {
      status = ds.name + " has no preference annotations: compare with reference models instead.";
    } else if (!columns.length) {
      status = "No comparisons in " + ds.name + " between the chosen reference models and " +
        "any other model" + (state.split ? " (" + state.target + ")" : "") + ".";
    }
    $("ex-status").textContent = status || (columns.length + " column" +
      (columns.length === 1 ? "" : "s") + ", " + traits.length + " traits.");
    if (status) { return; }
    var table = el("table", null, "data");
    table.id = "explore-table";
    table.appendChild(el("caption", caption(ds)));
    var head = el("tr");
    var th = el("th", "Trait");
    th.scope = "col";
    head.appendChild(th);
    var many = columns.length > 6;  // many columns: names run upwards, so cells stay narrow
    columns.forEach(function (c) {
      var cell = el("th", short(c.label), many ? "mc" : "");
      cell.title = c.label;
      cell.scope = "col";
      cell.setAttribute("data-type", "num");  // numbers: right-aligned, like every table
      head.appendChild(cell);
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    traits.forEach(function (x) {
      var trait = INDEX.traits[x[0]], row = el("tr"), header = el("th");
      header.scope = "row";
      if (trait[3]) {
        var link = el("a", trait[1]);
        link.href = trait[3];
        header.appendChild(link);
      } else {
        header.textContent = trait[1];
      }
      row.appendChild(header);
      columns.forEach(function (c) {
        var a = c.flat[3 * x[1]], d = c.flat[3 * x[1] + 1], n = c.flat[3 * x[1] + 2];
        var value = metric(a, d, n, state.m);
        var finding = a + d >= INDEX.minValid;
        var signedMetric = state.m === "strength" || state.m === "kappa";
        var td = el("td", null, signedMetric ? heat(value, finding) : (finding ? "" : "nf"));
        var button = el("button", shown(value, state.m), "cell-button");
        var bounds = interval(a, d, n, state.m);
        button.type = "button";
        button.title = a + " agree, " + d + " disagree, " + (n - a - d) +
          " not applicable; show these comparisons";
        button.addEventListener("click", function () { showCell(C, x[0], c); });
        td.appendChild(button);
        if (!isNaN(bounds[0])) {
          td.appendChild(el("span", shown(bounds[0], state.m) + " to " +
                            shown(bounds[1], state.m), "ci"));
        }
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    table.appendChild(body);
    wrap.appendChild(table);
  }

  // A cell's comparisons: its trait, its split value and a pair behind its column.
  function showCell(C, trait, column) {
    state.vt = INDEX.traits[trait][0];
    state.vx = column.value || "";
    state.vv = "";
    state.vi = 0;
    if (column.target !== undefined) {
      var refs = refIndices(), best = null;
      C.p.forEach(function (pair) {
        var other = pair[0] === column.target ? pair[1] : pair[1] === column.target ? pair[0] : -1;
        if (other >= 0 && refs.indexOf(other) >= 0 && (!best || pair[2] > best[2])) { best = pair; }
      });
      if (best) { state.pa = INDEX.models[best[0]]; state.pb = INDEX.models[best[1]]; }
    }
    update().then(function () { $("viewer").scrollIntoView(); });
  }

  // ------------------------------------------------------------------ the viewer

  function pairOptions(C) {
    if (!C.p.length) { return [["0", "all comparisons (no models)"]]; }
    return C.p.map(function (pair, k) {
      return [String(k), INDEX.models[pair[0]] + " vs " + INDEX.models[pair[1]] +
              " (" + pair[2] + ")"];
    });
  }

  function chosenPair(C) {
    if (!C.p.length) { return 0; }
    var a = INDEX.models.indexOf(state.pa), b = INDEX.models.indexOf(state.pb);
    for (var k = 0; k < C.p.length; k++) {
      if (C.p[k][0] === a && C.p[k][1] === b) { return k; }
    }
    // Default: the largest pair with a reference model (and the chosen model) in it.
    var refs = refIndices(), target = INDEX.models.indexOf(state.target), best = 0;
    var rank = function (pair) {
      var hasRef = refs.indexOf(pair[0]) >= 0 || refs.indexOf(pair[1]) >= 0;
      var hasTarget = pair[0] === target || pair[1] === target;
      return (hasRef ? 2 : 0) + (hasTarget && hasRef ? 1 : 0);
    };
    C.p.forEach(function (pair, j) {
      var better = rank(pair) - rank(C.p[best]);
      if (better > 0 || (better === 0 && pair[2] > C.p[best][2])) { best = j; }
    });
    return best;
  }

  function referenceSide(point) {
    if (state.against === "preference") {
      var ds = INDEX.datasets[state.d];
      return state.pj === ds.preferences[0] ? point.pref : annotatorSide(point, state.pj);
    }
    var aRef = state.refs.indexOf(INDEX.models[point.a]) >= 0;
    var bRef = state.refs.indexOf(INDEX.models[point.b]) >= 0;
    if (aRef === bRef || point.a < 0 || point.b < 0) { return 0; }
    return aRef ? 2 : 1;  // the side of the model that is not a reference
  }

  // The side a preference annotator chose, from its votes (a majority of them).
  function annotatorSide(point, judge) {
    for (var i = 0; i < INDEX.annotators.length; i++) {
      if (INDEX.annotators[i][0] === "p" && INDEX.annotators[i][1] === judge) {
        var digits = String(point.v[i] || "").replace(/[056]/g, "");
        var a = digits.split("1").length - 1, b = digits.split("2").length - 1;
        return 2 * a > digits.length ? 1 : 2 * b > digits.length ? 2 : 0;
      }
    }
    return 0;
  }

  function outcome(point, trait) {
    var side = referenceSide(point), code = Number(point.tv.charAt(trait));
    if (!side || (code !== 1 && code !== 2)) { return "na"; }
    return code === side ? "agree" : "disagree";
  }

  function syncViewer(C) {
    var ds = INDEX.datasets[state.d];
    var k = chosenPair(C);
    fill($("vw-pair"), pairOptions(C), String(k));
    if (C.p.length) { state.pa = INDEX.models[C.p[k][0]]; state.pb = INDEX.models[C.p[k][1]]; }
    var traits = C.t.filter(function (t) { return INDEX.judges[INDEX.traits[t][2]] === state.j; });
    var ids = traits.map(function (t) { return INDEX.traits[t][0]; });
    if (ids.indexOf(state.vt) < 0) { state.vt = ""; }
    fill($("vw-trait"), [["", "any (no vote filter)"]].concat(traits.map(function (t) {
      return [INDEX.traits[t][0], INDEX.traits[t][1]]; })), state.vt);
    $("vw-vote").value = state.vv;
    $("vw-vote").disabled = !state.vt;
    var values = state.split ? C.s[splitIndex(ds)][1] : [];
    if (values.indexOf(state.vx) < 0) { state.vx = ""; }
    fill($("vw-value"), [["", "any"]].concat(values.map(function (v) { return [v, v]; })),
         state.vx);
    $("vw-value").hidden = $("vw-value-label").hidden = !state.split;
    return k;
  }

  function drawViewer(C, k) {
    var ds = INDEX.datasets[state.d], out = $("vw-point");
    return load(ds.points + C.f[k] + ".json").then(function (file) {
      var chunk = file.pairs.filter(function (p) { return p.k === k; })[0];
      var trait = -1;
      INDEX.traits.forEach(function (t, i) { if (t[0] === state.vt) { trait = i; } });
      var metaAt = ds.splits.indexOf(state.split);
      var points = chunk.c.filter(function (p) {
        if (state.vx && metaAt >= 0 && p.m[metaAt] !== state.vx) { return false; }
        return !(trait >= 0 && state.vv) || outcome(p, trait) === state.vv;
      });
      if (state.vi >= points.length) { state.vi = Math.max(0, points.length - 1); }
      $("vw-prev").disabled = state.vi <= 0;
      $("vw-next").disabled = state.vi >= points.length - 1;
      $("vw-status").textContent = points.length ?
        "Comparison " + (state.vi + 1) + " of " + points.length + " shown here (" +
        chunk.c.length + " sampled of " + chunk.total + " in this pair)." :
        "No sampled comparison of this pair matches (" + chunk.c.length + " sampled of " +
        chunk.total + ").";
      out.textContent = "";
      if (points.length) { out.appendChild(drawPoint(ds, points[state.vi], trait)); }
      writeURL();
    }, function (error) {
      out.textContent = "";
      $("vw-status").textContent = "The datapoints could not be loaded (" + error.message +
        "); open the site from a web server, not as a file.";
    });
  }

  function votesOf(value) {
    if (!value) { return "–"; }
    return String(value).split("").map(function (c) { return VOTE_NAMES[Number(c)]; })
      .join(", ");
  }

  function modelName(i) { return i >= 0 ? INDEX.models[i] : "–"; }

  function drawPoint(ds, point, trait) {
    var box = el("article", null, "vw-card");
    box.appendChild(el("h3", "Comparison " + point.id));
    var facts = el("dl", null, "facts");
    var add = function (term, detail) {
      facts.appendChild(el("dt", term));
      facts.appendChild(el("dd", detail));
    };
    add("Response A", modelName(point.a));
    add("Response B", modelName(point.b));
    ds.splits.forEach(function (s, i) { add(s, point.m[i] === null ? "–" : point.m[i]); });
    if (trait >= 0) {
      var result = {agree: "agrees", disagree: "disagrees", na: "not applicable"}[outcome(point, trait)];
      add("Trait vote", INDEX.traits[trait][1] + ": " +
          VOTE_NAMES[Number(point.tv.charAt(trait))] + " (" + result + ")");
    }
    box.appendChild(facts);

    var table = el("table", null, "data vw-votes");
    table.appendChild(el("caption", "Every vote on this comparison"));
    var head = el("tr");
    ["Judge", "Annotates", "Vote"].forEach(function (h) {
      var th = el("th", h);
      th.scope = "col";
      head.appendChild(th);
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    INDEX.annotators.forEach(function (annotator, i) {
      if (!point.v[i]) { return; }
      var row = el("tr");
      var th = el("th", annotator[1]);
      th.scope = "row";
      row.appendChild(th);
      row.appendChild(el("td", annotator[0] === "p" ? "preference" :
                               INDEX.traits[annotator[2]][1], "text"));
      row.appendChild(el("td", votesOf(point.v[i]), "text"));
      body.appendChild(row);
    });
    table.appendChild(body);
    var wrap = el("div", null, "table-wrap");
    wrap.appendChild(table);
    box.appendChild(wrap);

    if (!point.texts) {
      box.appendChild(el("p", ds.textNote || "Texts left out for this comparison.", "note"));
      return box;
    }
    if (point.texts[0] !== null) {
      box.appendChild(el("h4", "Prompt"));
      box.appendChild(el("div", point.texts[0], "prompt"));
    }
    var pair = el("div", null, "pair");
    [["A", 1], ["B", 2]].forEach(function (side) {
      if (point.texts[side[1]] === null) { return; }
      var part = el("div", null, "response");
      part.appendChild(el("h4", "Response " + side[0] + " (" +
                          modelName(side[1] === 1 ? point.a : point.b) + ")"));
      part.appendChild(el("div", point.texts[side[1]], "vw-text"));
      pair.appendChild(part);
    });
    box.appendChild(pair);
    (point.why || []).forEach(function (text, seed) {
      if (text === null) { return; }
      box.appendChild(el("h4", "The judge's reasoning, " + (seed === 0 ?
        "A shown first" : "B shown first")));
      box.appendChild(el("div", text, "vw-text"));
    });
    return box;
  }

  // ------------------------------------------------------------------ wiring

  function update() {
    var ds = INDEX.datasets[state.d], main = document.querySelector("main");
    // Busy while the table and the viewer are redrawn: assistive technology (and the
    // tests) then know the page is not in its final state yet.
    main.setAttribute("aria-busy", "true");
    return load(ds.counts).then(function (C) {
      syncControls(C);
      drawTable(C);
      var k = syncViewer(C);
      writeURL();
      return drawViewer(C, k);
    }, function (error) {
      $("ex-status").textContent = "The counts could not be loaded (" + error.message +
        "); the table shows the default view. Open the site from a web server, not as a file.";
    }).then(function () { main.removeAttribute("aria-busy"); });
  }

  function readViewer() {
    var ds = INDEX.datasets[state.d];
    return load(ds.counts).then(function (C) {
      var k = parseInt($("vw-pair").value, 10) || 0;
      if (C.p.length) { state.pa = INDEX.models[C.p[k][0]]; state.pb = INDEX.models[C.p[k][1]]; }
      state.vt = $("vw-trait").value;
      state.vv = $("vw-vote").value;
      state.vx = $("vw-value").value;
    });
  }

  form.addEventListener("change", function () { readControls(); state.vi = 0; update(); });
  viewerForm.addEventListener("change", function () {
    state.vi = 0;
    readViewer().then(update);
  });
  $("vw-prev").addEventListener("click", function () {
    state.vi = Math.max(0, state.vi - 1);
    update();
  });
  $("vw-next").addEventListener("click", function () { state.vi += 1; update(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  viewerForm.addEventListener("submit", function (event) { event.preventDefault(); });

  readURL();
  form.hidden = false;
  viewerForm.hidden = false;
  update();
}());
