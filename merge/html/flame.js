/* pyprof flame graph page.  The data (pyprof-merge --format html) is the
 * merged model: functions, the trie of frames (node id i + 1 = parent,
 * function, line; parents come before their children), stacks
 * (process, thread, leaf node, wall, cpu, gil counts), processes, and
 * source lines.  Everything below works per node or stack, never per
 * sample, and draws only what is wider than a pixel, so large profiles
 * open at once. */
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("data").textContent);
  var P = D.profile, B = D.base || null, DIFF = !!B;
  var MODES = ["wall", "cpu", "gil", "exception", "tasks"];
  /* a stack: process, thread, leaf, then one count per mode */
  var STRIDE = 3 + MODES.length;
  var mode = Math.max(0, MODES.indexOf(D.mode));
  var $ = function (id) { return document.getElementById(id); };
  var fmt = function (n) { return Math.round(n).toLocaleString("en-US"); };
  /* seconds, to a precision that suits them */
  var secs = function (x) {
    return x >= 100 ? x.toFixed(0) + " s" : x >= 1 ? x.toFixed(2) + " s" :
           x >= 0.001 ? (x * 1000).toFixed(x >= 0.01 ? 0 : 1) + " ms" : x ? "<1 ms" : "0 s";
  };
  var pct = function (n, of) { return of ? (100 * n / of).toFixed(n * 1000 < of ? 2 : 1) + "%" : "0%"; };

  /* ---------------------------------------------------------- functions */
  var fname = [], ffile = [], fline = [], byKey = new Map();
  function addFunc(f) {
    fname.push(f[0]); ffile.push(f[1]); fline.push(f[2]);
    var k = f[0] + "\u0000" + f[1];
    if (!byKey.has(k)) byKey.set(k, fname.length - 1);
    return fname.length - 1;
  }
  P.funcs.forEach(addFunc);
  /* The roots of the "by process" and "by thread" views: one pseudo-
   * function per process and per thread, named as the panels name them. */
  var procFunc = [], threadFunc = [];
  P.procs.forEach(function (p, i) {
    var who = (p.host ? p.host + " " : "") + p.pid;
    procFunc[i] = addFunc(["process " + who + " \u00b7 " + (p.label || p.cmd || ""), "~", 0]);
    threadFunc[i] = (p.threads || []).map(function (t) {
      return t ? addFunc(["thread " + who + " \u00b7 " + t[1] + " (tid " + t[0] + ")", "~", 0]) : -1;
    });
  });
  /* A diff's base knows a function by qualified name and file. */
  var baseFunc = B ? B.funcs.map(function (f) {
    var i = byKey.get(f[0] + "\u0000" + f[1]);
    return i === undefined ? addFunc(f) : i;
  }) : null;
  var NF = fname.length;

  /* ------------------------------------------- trie -> flame nodes */
  /* Flame node 0 is the root; a node is (parent flame node, function):
   * frames of one function at different lines merge, as flame graphs
   * show them. */
  var fnParent = [0], fnFunc = [-1], fnDepth = [0], fnIndex = new Map();
  function fnode(parent, func) {
    var k = parent * NF + func, f = fnIndex.get(k);
    if (f === undefined) {
      f = fnParent.length;
      fnIndex.set(k, f);
      fnParent.push(parent); fnFunc.push(func); fnDepth.push(fnDepth[parent] + 1);
    }
    return f;
  }
  function trie(prof, funcMap) {
    var nd = prof.nodes, n = nd.length / 3;
    var t = { n: n, parent: new Int32Array(n + 1), func: new Int32Array(n + 1),
              line: new Int32Array(n + 1), fn: new Int32Array(n + 1) };
    for (var i = 1; i <= n; i++) {
      var p = nd[3 * i - 3], fu = nd[3 * i - 2];
      if (!(p >= 0 && p < i) || !(fu >= 0 && fu < funcMap.length)) p = 0; /* never from merge */
      t.parent[i] = p;
      t.func[i] = funcMap[fu] === undefined ? 0 : funcMap[fu];
      t.line[i] = Math.min(Math.max(nd[3 * i - 1] | 0, 0), 2097151);
      t.fn[i] = fnode(t.fn[p], t.func[i]);
    }
    return t;
  }
  var T = trie(P, P.funcs.map(function (_, i) { return i; }));
  var TB = B ? trie(B, baseFunc) : null;
  var NFN = fnParent.length;
  /* children of each flame node, as one array of slices (made again when
   * a view adds nodes) */
  var kidStart, kids;
  function makeKids() {
    NFN = fnParent.length;
    kidStart = new Int32Array(NFN + 1);
    kids = new Int32Array(Math.max(NFN - 1, 1));
    for (var f = 1; f < NFN; f++) kidStart[fnParent[f] + 1]++;
    for (var i = 0; i < NFN; i++) kidStart[i + 1] += kidStart[i];
    var at = kidStart.slice(0, NFN);
    for (f = 1; f < NFN; f++) kids[at[fnParent[f]]++] = f;
  }
  makeKids();
  /* Views: 0 merged (every process's stacks in one tree), 1 by process,
   * 2 by thread (a root box per process or thread).  A grouped view's
   * nodes are made the first time it is shown: for each stack, the flame
   * node of its leaf under its group's root. */
  var view = 0, viewLeaf = [null, null, null];
  function makeView(v) {
    if (v === 0 || viewLeaf[v]) return;
    var st = P.stacks, n = st.length / STRIDE, leafOf = new Int32Array(n), memo = new Map();
    function under(g, node) {              /* flame node of trie node under root g */
      if (!node) return g;
      var k = g * (T.n + 1) + node, f = memo.get(k);
      if (f === undefined) {
        f = fnode(under(g, T.parent[node]), T.func[node]);
        memo.set(k, f);
      }
      return f;
    }
    for (var s = 0; s < n; s++) {
      var p = st[s * STRIDE], th = st[s * STRIDE + 1], leaf = st[s * STRIDE + 2];
      if (leaf < 1 || leaf > T.n || p >= P.procs.length) { leafOf[s] = -1; continue; }
      var gf = v === 1 ? procFunc[p] : (threadFunc[p][th] >= 0 ? threadFunc[p][th] : procFunc[p]);
      leafOf[s] = under(fnode(0, gf), leaf);
    }
    viewLeaf[v] = leafOf;
    makeKids();
    ftot = new Float64Array(NFN); fself = new Float64Array(NFN); btot = new Float64Array(NFN);
    fsec = new Float64Array(NFN); fselfSec = new Float64Array(NFN);
  }
  /* Whether a node is the outermost of its function / of its line on
   * its path: a recursive function's samples count once. */
  var outerFunc = new Uint8Array(T.n + 1), outerLine = new Uint8Array(T.n + 1);
  (function () {
    var first = new Int32Array(T.n + 1), next = new Int32Array(T.n + 1);
    for (var i = T.n; i >= 1; i--) { next[i] = first[T.parent[i]]; first[T.parent[i]] = i; }
    var onFunc = new Int32Array(NF), onLine = new Map(), stack = [], path = [0];
    for (var k = first[0]; k; k = next[k]) stack.push(k);
    while (stack.length) {
      var id = stack.pop();
      while (path[path.length - 1] !== T.parent[id]) leave(path.pop());
      var lk = T.func[id] * 2097152 + T.line[id], c = onLine.get(lk) || 0;
      outerFunc[id] = onFunc[T.func[id]]++ === 0 ? 1 : 0;
      outerLine[id] = c === 0 ? 1 : 0;
      onLine.set(lk, c + 1);
      path.push(id);
      for (k = first[id]; k; k = next[k]) stack.push(k);
    }
    function leave(id) {
      onFunc[T.func[id]]--;
      var lk = T.func[id] * 2097152 + T.line[id];
      onLine.set(lk, onLine.get(lk) - 1);
    }
  })();

  /* ---------------------------------------------------------- processes */
  var procs = P.procs, NP = procs.length;
  var procKids = procs.map(function () { return []; }), roots = [];
  procs.forEach(function (p, i) {
    if (p.folded_into >= 0) return;
    var up = p.parent;
    /* a process started by a folded worker hangs under the one shown */
    if (up >= 0 && up < NP && procs[up].folded_into >= 0) up = procs[up].folded_into;
    if (up >= 0 && up < NP && up !== i) procKids[up].push(i);
    else roots.push(i);
  });
  var chosenProc = -1, chosenThread = null; /* [proc, thread] */
  var sel = new Uint8Array(NP);
  function selectProcs() {
    sel.fill(chosenProc < 0 ? 1 : 0);
    if (chosenProc < 0) return;
    var todo = [chosenProc], sub = $("subtree").checked;
    while (todo.length) {
      var p = todo.pop();
      if (sel[p]) continue;
      sel[p] = 1;
      if (sub) todo.push.apply(todo, procKids[p]);
    }
  }

  /* ---------------------------------------------------------- counting */
  var tval = new Float64Array(T.n + 1), ftot = new Float64Array(NFN), fself = new Float64Array(NFN);
  /* per function (not per box), for the function table: self, total
   * (each stack once, however often the function is on it), seconds */
  var town = new Float64Array(T.n + 1), tsecOwn = new Float64Array(T.n + 1);
  var funcSelf = new Float64Array(NF), funcTot = new Float64Array(NF),
      funcSelfSec = new Float64Array(NF), funcTotSec = new Float64Array(NF);
  var btot = new Float64Array(NFN), total = 0, btotal = 0;
  /* the same in seconds: each sample is its process's interval (iv) */
  var tsec = new Float64Array(T.n + 1), fsec = new Float64Array(NFN),
      fselfSec = new Float64Array(NFN), totalSec = 0;
  var procSamples = new Float64Array(NP), threadSamples = new Map();
  var subtree = null;       /* per trie node: its subtree's samples */
  function compute() {
    var st = P.stacks, n = st.length, i;
    tval.fill(0); ftot.fill(0); fself.fill(0); procSamples.fill(0);
    tsec.fill(0); fsec.fill(0); fselfSec.fill(0);
    threadSamples.clear();
    for (i = 0; i < n; i += STRIDE) {
      var p = st[i], th = st[i + 1], leaf = st[i + 2], v = st[i + 3 + mode];
      if (!v || leaf < 1 || leaf > T.n || p >= NP) continue;
      procSamples[p] += v;
      if (!sel[p]) continue;
      var tk = p + ":" + th;
      threadSamples.set(tk, (threadSamples.get(tk) || 0) + v);
      if (chosenThread && (chosenThread[0] !== p || chosenThread[1] !== th)) continue;
      tval[leaf] += v;
      fself[T.fn[leaf]] += v;
      var sv = v * (procs[p].iv || 0);
      tsec[leaf] += sv;
      fselfSec[T.fn[leaf]] += sv;
    }
    /* the function table's counts, from the trie (whatever the view) */
    town.set(tval); tsecOwn.set(tsec);
    funcSelf.fill(0); funcTot.fill(0); funcSelfSec.fill(0); funcTotSec.fill(0);
    var sub = new Float64Array(T.n + 1), subSec = new Float64Array(T.n + 1);
    sub.set(tval); subSec.set(tsec);
    for (i = T.n; i >= 1; i--) {
      sub[T.parent[i]] += sub[i];
      subSec[T.parent[i]] += subSec[i];
    }
    for (i = 1; i <= T.n; i++) {
      if (!sub[i]) continue;
      funcSelf[T.func[i]] += town[i];
      funcSelfSec[T.func[i]] += tsecOwn[i];
      if (outerFunc[i]) { funcTot[T.func[i]] += sub[i]; funcTotSec[T.func[i]] += subSec[i]; }
    }
    subtree = sub;
    if (view) {
      /* a grouped view: each stack's value on its leaf's node under its
       * group, then up the flame tree (a node's parent comes first) */
      fself.fill(0); fselfSec.fill(0);
      var leafOf = viewLeaf[view];
      for (i = 0; i < n; i += STRIDE) {
        var f0 = leafOf[i / STRIDE], p0 = st[i], v0 = st[i + 3 + mode];
        if (f0 < 0 || !v0 || !sel[p0]) continue;
        if (chosenThread && (chosenThread[0] !== p0 || chosenThread[1] !== st[i + 1])) continue;
        var s0 = v0 * (procs[p0].iv || 0);
        ftot[f0] += v0; fself[f0] += v0; fsec[f0] += s0; fselfSec[f0] += s0;
      }
      for (var f1 = NFN - 1; f1 >= 1; f1--) {
        ftot[fnParent[f1]] += ftot[f1];
        fsec[fnParent[f1]] += fsec[f1];
      }
      total = ftot[0];
      totalSec = fsec[0];
    } else {
      for (i = T.n; i >= 1; i--) {
        if (!tval[i]) continue;
        /* the node's own samples were added above; ftot sums whole subtrees */
        ftot[T.fn[i]] += tval[i];
        tval[T.parent[i]] += tval[i];
        fsec[T.fn[i]] += tsec[i];
        tsec[T.parent[i]] += tsec[i];
      }
      total = ftot[0] = tval[0];
      totalSec = fsec[0] = tsec[0];
    }
    if (DIFF) computeBase();
  }
  function computeBase() {
    var bt = new Float64Array(TB.n + 1), st = B.stacks, i;
    btot.fill(0);
    for (i = 0; i < st.length; i += STRIDE) {
      var leaf = st[i + 2];
      if (leaf >= 1 && leaf <= TB.n) bt[leaf] += st[i + 3 + mode];
    }
    for (i = TB.n; i >= 1; i--) {
      if (!bt[i]) continue;
      btot[TB.fn[i]] += bt[i];
      bt[TB.parent[i]] += bt[i];
    }
    btotal = btot[0] = bt[0];
  }

  /* ---------------------------------------------------------- search */
  var matchFunc = null, matched = 0;
  function setSearch() {
    var q = $("search").value.trim();
    matchFunc = null;
    if (q) {
      var re;
      try { re = new RegExp(q, "i"); } catch (e) {
        var lq = q.toLowerCase();
        re = { test: function (s) { return s.toLowerCase().indexOf(lq) >= 0; } };
      }
      matchFunc = new Uint8Array(NF);
      for (var i = 0; i < NF; i++) matchFunc[i] = re.test(fname[i]) || re.test(ffile[i]) ? 1 : 0;
    }
    countMatched();
  }
  /* Samples under a match, each stack once however many matches it has. */
  function countMatched() {
    matched = 0;
    if (!matchFunc) { $("match").textContent = ""; return; }
    var under = new Uint8Array(NFN);
    for (var f = 1; f < NFN; f++) {
      var m = matchFunc[fnFunc[f]];
      if (m && !under[fnParent[f]]) matched += ftot[f];
      under[f] = under[fnParent[f]] | m;
    }
    $("match").textContent = pct(matched, total) + " matched \u00b7 " + fmt(matched) + " samples";
    $("match").title = "matched " + pct(matched, total) + " (" + fmt(matched) + " of " +
                       fmt(total) + " samples)";
    $("match").dataset.share = total ? (matched / total).toFixed(6) : "0";
    $("match").dataset.samples = matched;
  }

  /* ---------------------------------------------------------- drawing */
  var canvas = $("flame"), ctx = canvas.getContext("2d");
  var RH = 18, FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
  var zoom = 0, history = [], rects = null, hoverNode = -1, cursor = -1, shownMessage = "";
  function hue(s) {
    var h = 0;
    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h);
  }
  var colorCache = new Map();
  function color(f) {
    var fu = fnFunc[f];
    if (f === 0) return "#c9ced8";
    if (DIFF) {
      var d = (total ? ftot[f] / total : 0) - (btotal ? btot[f] / btotal : 0);
      var a = Math.min(1, Math.abs(d) / diffScale);
      if (a < 0.02) return "#eef0f3";
      return "hsl(" + (d > 0 ? 0 : 218) + ",78%," + (92 - 40 * a).toFixed(0) + "%)";
    }
    var c = colorCache.get(fu);
    if (!c && ffile[fu] === "~") c = "#b9c3d6";   /* pseudo-frames: <GC>, <task>, roots */
    if (!c) {
      var h = hue(fname[fu]), lib = /[\/\\](lib|Lib)[\/\\]python|site-packages|^<frozen/.test(ffile[fu]);
      c = lib ? "hsl(" + (42 + h % 14) + ",70%," + (68 + (h >> 4) % 10) + "%)"
              : "hsl(" + (h % 38 + 2) + ",82%," + (60 + (h >> 4) % 12) + "%)";
      colorCache.set(fu, c);
    }
    return c;
  }
  var diffScale = 0.01;
  function sortedKids(f) {
    var a = Array.prototype.slice.call(kids, kidStart[f], kidStart[f + 1]);
    return a.filter(function (k) { return ftot[k] > 0; })
            .sort(function (x, y) { return ftot[y] - ftot[x] || fnFunc[x] - fnFunc[y]; });
  }
  function label(f) {
    return f === 0 ? (DIFF ? "all (new run)" : "all") : fname[fnFunc[f]];
  }
  /* Rectangles to draw, by row: the zoomed node's ancestors full width
   * (past ANCESTORS of them, the root, one row that stands for the
   * others, and the nearest two: a zoom into a deep tower shows its
   * leaves, not hundreds of full-width rows), then its subtree scaled to
   * the width, skipping what is under half a pixel. */
  var ANCESTORS = 4;
  function layout(W) {
    var out = { f: [], x: [], w: [], d: [], elided: -1, hidden: 0 }, maxd = 0;
    if (!ftot[zoom]) zoom = 0;
    var chain = [];
    for (var a = zoom; a; a = fnParent[a]) chain.push(fnParent[a]);
    chain.reverse();                   /* the root first, the zoom's parent last */
    var row = 0;
    if (chain.length > ANCESTORS) {
      push(chain[0], 0, W, row++);
      out.hidden = chain.length - 3;
      out.elided = out.f.length;
      push(chain[chain.length - 3], 0, W, row++);
      chain = chain.slice(-2);
    }
    for (var i = 0; i < chain.length; i++) push(chain[i], 0, W, row++);
    var base = row - fnDepth[zoom];
    var scale = ftot[zoom] ? W / ftot[zoom] : 0, todo = [[zoom, 0]];
    while (todo.length) {
      var it = todo.pop(), f = it[0], x = it[1], w = ftot[f] * scale;
      if (w < 0.5) continue;
      push(f, x, w, base + fnDepth[f]);
      var ks = sortedKids(f), cx = x;
      for (var k = 0; k < ks.length; k++) {
        var kw = ftot[ks[k]] * scale;
        if (kw >= 0.5) todo.push([ks[k], cx]);
        cx += kw;
      }
    }
    function push(f, x, w, d) {
      out.f.push(f); out.x.push(x); out.w.push(w); out.d.push(d);
      if (d > maxd) maxd = d;
    }
    out.maxd = maxd;
    return out;
  }
  function draw() {
    var W = Math.max(300, $("graph").clientWidth - 2), dpr = window.devicePixelRatio || 1;
    if (DIFF) {
      diffScale = 0.005;
      for (var f = 1; f < NFN; f++) {
        var d = Math.abs((total ? ftot[f] / total : 0) - (btotal ? btot[f] / btotal : 0));
        if (d > diffScale) diffScale = d;
      }
    }
    rects = layout(W);
    var icicle = $("icicle").checked, H = (rects.maxd + 1) * RH + 1;
    if (!total) H = Math.max(H, 3 * RH);
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    canvas.style.width = W + "px"; canvas.style.height = H + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    ctx.font = FONT; ctx.textBaseline = "middle";
    var cw = ctx.measureText("abcdefghijklmnopqrstuvwxyz_.").width / 28;
    rects.y = [];
    if (!total) {
      /* nothing in this mode and selection: say so rather than a blank */
      ctx.fillStyle = "#667085";
      ctx.fillText("no samples in this selection (" + MODES[mode] + " mode)", 8, RH * 1.5);
    }
    shownMessage = total ? "" : "no samples";
    for (var i = 0; i < rects.f.length; i++) {
      var fn = rects.f[i], x = rects.x[i], w = rects.w[i];
      var y = icicle ? rects.d[i] * RH : (rects.maxd - rects.d[i]) * RH;
      rects.y.push(y);
      var hit = matchFunc && fn && matchFunc[fnFunc[fn]], elided = i === rects.elided;
      ctx.fillStyle = elided ? "#e5e7eb" : hit ? "#c026d3" : color(fn);
      ctx.globalAlpha = matchFunc && !hit && fn ? 0.55 : 1;
      ctx.fillRect(x, y + 0.5, Math.max(w - 0.5, 0.5), RH - 1);
      ctx.globalAlpha = 1;
      if (fn === hoverNode || fn === cursor) {
        ctx.strokeStyle = fn === cursor ? "#6d28d9" : "#111827";
        ctx.lineWidth = fn === cursor ? 2.5 : 1.5;
        ctx.strokeRect(x + 0.75, y + 1.25, Math.max(w - 2, 1), RH - 2.5);
      }
      if (w > 28) {
        var text = elided ? "\u22ef " + rects.hidden + " more frames (click to see them)" : label(fn),
            room = Math.floor((w - 8) / cw);
        if (fn === 0) text += " (" + fmt(total) + " samples, " + secs(totalSec) + ")";
        /* the file's base name too, where there is room for it */
        else if (!elided && ffile[fnFunc[fn]] !== "~") {
          var more = text + " \u00b7 " + ffile[fnFunc[fn]].replace(/^.*[\/\\]/, "");
          if (more.length <= room) text = more;
        }
        if (text.length > room) text = room > 2 ? text.slice(0, room - 1) + "\u2026" : "";
        if (text) {
          ctx.fillStyle = hit ? "#ffffff" : "#1d2330";
          ctx.fillText(text, x + 4, y + RH / 2 + 0.5);
        }
      }
    }
    crumbs();
  }
  function crumbs() {
    var c = $("crumbs");
    c.textContent = "";
    var chain = [];
    for (var a = zoom; a; a = fnParent[a]) chain.push(a);
    chain.push(0);
    chain.reverse().forEach(function (f, i) {
      if (i) c.appendChild(document.createTextNode(" \u203a "));
      var a = document.createElement("a");
      a.textContent = label(f);
      a.onclick = function () { zoomTo(f); };
      c.appendChild(a);
    });
    c.dataset.zoom = label(zoom);
  }
  function zoomTo(f) {
    if (f === zoom) return;
    history.push(zoom);
    zoom = f;
    zoomed();
  }
  function back() {
    if (history.length) { zoom = history.pop(); zoomed(); }
  }
  function zoomed() {
    draw();
    toRoot();
    renderLines();
    saveState();
  }
  function at(ev) {
    if (!rects) return -1;
    var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    for (var i = rects.f.length - 1; i >= 0; i--)
      if (y >= rects.y[i] && y < rects.y[i] + RH && x >= rects.x[i] && x < rects.x[i] + rects.w[i])
        return rects.f[i];
    return -1;
  }
  canvas.addEventListener("click", function (ev) {
    var f = at(ev);
    /* the box's function is the table's choice too, its lines first in
     * the line view */
    if (f > 0 && fnFunc[f] >= 0) chooseFunc(fnFunc[f], false);
    if (f >= 0) zoomTo(f === zoom && f ? fnParent[f] : f);
    cursor = -1;
    /* the boxes moved: the tooltip describes what is under the pointer now */
    hover(ev);
  });
  canvas.addEventListener("mousemove", hover);
  function hover(ev) {
    var f = at(ev);
    if (f !== hoverNode) { hoverNode = f; draw(); }
    showTip(f, ev.clientX, ev.clientY);
  }
  function showTip(f, cx, cy) {
    var tip = $("tip");
    if (f < 0) { tip.hidden = true; return; }
    tip.textContent = "";
    var name = document.createElement("div");
    name.className = "name"; name.textContent = label(f);
    if (rects && rects.elided >= 0 && rects.f[rects.elided] === f)
      name.textContent = "\u22ef " + rects.hidden + " frames not drawn; a click zooms to " +
                         label(f) + " to show them";
    tip.appendChild(name);
    if (f) {
      var loc = document.createElement("div");
      loc.className = "loc"; loc.textContent = ffile[fnFunc[f]] + ":" + fline[fnFunc[f]];
      tip.appendChild(loc);
    }
    var rows = [["total", fmt(ftot[f]) + " samples \u00b7 " + secs(fsec[f]), pct(ftot[f], total)],
                ["self", fmt(fself[f]) + " samples \u00b7 " + secs(fselfSec[f]), pct(fself[f], total)]];
    if (zoom) rows.push(["of zoomed", "", pct(ftot[f], ftot[zoom])]);
    if (DIFF) {
      rows.push(["base", fmt(btot[f]) + " samples", pct(btot[f], btotal)]);
      var d = 100 * ((total ? ftot[f] / total : 0) - (btotal ? btot[f] / btotal : 0));
      rows.push(["change", "", (d >= 0 ? "+" : "") + d.toFixed(2) + " points"]);
    }
    var tb = document.createElement("table");
    rows.forEach(function (r) {
      var tr = tb.insertRow();
      r.forEach(function (c) { tr.insertCell().textContent = c; });
    });
    tip.appendChild(tb);
    tip.hidden = false;
    var tx = cx + 14, ty = cy + 14;
    if (tx + tip.offsetWidth > window.innerWidth - 4) tx = Math.max(4, cx - tip.offsetWidth - 10);
    if (ty + tip.offsetHeight > window.innerHeight - 4) ty = Math.max(4, cy - tip.offsetHeight - 10);
    tip.style.left = tx + "px"; tip.style.top = ty + "px";
  }
  canvas.addEventListener("mouseleave", function () {
    $("tip").hidden = true;
    if (hoverNode >= 0) { hoverNode = -1; draw(); }
  });

  /* ---------------------------------------------------------- panels */
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function renderProcs() {
    var box = $("procs");
    box.textContent = "";
    var all = el("div", "proc" + (chosenProc < 0 ? " sel" : ""));
    var sum = 0;
    for (var i = 0; i < NP; i++) sum += procSamples[i];
    all.appendChild(el("span", "cmd", "All processes"));
    all.appendChild(el("span", "n", fmt(sum)));
    all.onclick = function () { chooseProc(-1); };
    box.appendChild(all);
    var rows = 0;
    (function walk(list, depth) {
      list.forEach(function (i) {
        if (rows++ > 5000) return;
        var p = procs[i], row = el("div", "proc" + (i === chosenProc ? " sel" : sel[i] && chosenProc >= 0 ? " in" : ""));
        row.dataset.pid = p.pid;
        row.dataset.index = i;
        row.style.paddingLeft = 4 + 14 * Math.min(depth, 12) + "px";
        row.title = p.cmd;
        row.appendChild(el("span", "cmd", p.label || p.cmd || "?"));
        row.appendChild(el("span", "n", fmt(procSamples[i])));
        row.appendChild(el("span", "meta", (p.host ? "host " + p.host + " \u00b7 " : "") +
          "pid " + p.pid + " \u00b7 " + p.by +
          (p.folded > 1 ? " \u00b7 \u00d7" + p.folded + " folded" : "") + " \u00b7 " + p.exit +
          " \u00b7 " + p.duration.toFixed(2) + " s \u00b7 Python " + p.python));
        row.onclick = function () { chooseProc(i === chosenProc ? -1 : i); };
        box.appendChild(row);
        walk(procKids[i], depth + 1);
      });
    })(roots, 0);
  }
  function renderThreads() {
    var s = $("thread"), keep = chosenThread ? chosenThread.join(":") : "";
    s.textContent = "";
    var o = el("option", "", "all threads");
    o.value = "";
    s.appendChild(o);
    var n = 0;
    for (var p = 0; p < NP && n < 500; p++) {
      if (!sel[p]) continue;
      procs[p].threads.forEach(function (t, ti) {
        if (!t || n >= 500) return;
        var k = p + ":" + ti, opt = el("option", "", (procs[p].host ? procs[p].host + " " : "") + procs[p].pid + " \u00b7 " + t[1] + " (tid " + t[0] +
                                        ", " + fmt(threadSamples.get(k) || 0) + ")");
        opt.value = k;
        s.appendChild(opt);
        n++;
      });
    }
    s.value = keep;
    if (s.value !== keep) { s.value = ""; chosenThread = null; }
  }
  function renderTotals() {
    var t = $("totals");
    t.textContent = "";
    var b = el("b", "", fmt(total));
    b.id = "total-samples";
    t.appendChild(b);
    t.appendChild(document.createTextNode(" samples (" + MODES[mode] + ", " +
                                          secs(totalSec) + " of threads' time)"));
    if (DIFF) {
      t.appendChild(document.createTextNode(" \u00b7 base " + fmt(btotal) + " samples"));
    } else {
      var shown = 0, all = 0;
      for (var i = 0; i < NP; i++) if (procs[i].folded_into < 0) { all++; shown += sel[i]; }
      t.appendChild(document.createTextNode(" \u00b7 " + (chosenProc < 0 ? all + " processes"
        : shown + " of " + all + " processes") + (chosenThread ? " \u00b7 one thread" : "") +
        " \u00b7 all modes: wall " + fmt(P.samples[0]) + ", cpu " + fmt(P.samples[1]) +
        ", gil " + fmt(P.samples[2]) + ", exception " + fmt(P.samples[3]) +
        (P.samples[4] > P.samples[0] ? ", tasks " + fmt(P.samples[4]) : "")));
      var cut = P.truncated ? P.truncated[mode] : 0;
      if (cut) {
        var c = el("span", "", " \u00b7 " + fmt(cut) + " truncated (stacks deeper than " +
                   P.max_depth + " frames: outer frames cut, shown under <truncated>)");
        c.id = "truncated-samples";
        t.appendChild(c);
      }
    }
    t.dataset.samples = total;
    t.dataset.seconds = totalSec;
  }

  /* ---------------------------------------------------------- line view */
  var source = new Map(); /* file -> Map(line -> text) */
  (P.src || []).forEach(function (f) {
    var m = new Map(), a = f[1];
    for (var i = 0; i + 1 < a.length; i += 2) m.set(a[i], a[i + 1]);
    source.set(f[0], m);
  });
  var LINE_FUNCS = 10, WHOLE = 40, CONTEXT = 3;
  /* The samples the line view counts: the selection's stacks that pass
   * through the zoomed box and, while a search is on, hold a match; per
   * trie node, its subtree's samples (sub) and per function and line,
   * the samples it was the leaf of (leaf). */
  function lineCounts() {
    var pass = new Uint8Array(NFN), hit = new Uint8Array(NFN), f;
    pass[0] = zoom === 0 ? 1 : 0;
    for (f = 1; f < NFN; f++) {
      pass[f] = f === zoom || pass[fnParent[f]] ? 1 : 0;
      hit[f] = hit[fnParent[f]] | (matchFunc ? matchFunc[fnFunc[f]] : 0);
    }
    if (matchFunc) for (f = 0; f < NFN; f++) pass[f] &= hit[f];
    var st = P.stacks, n = st.length, leafOf = view ? viewLeaf[view] : null;
    var sub = new Float64Array(T.n + 1), leaf = new Map();
    for (var i = 0; i < n; i += STRIDE) {
      var p = st[i], th = st[i + 1], lf = st[i + 2], v = st[i + 3 + mode];
      if (!v || lf < 1 || lf > T.n || p >= NP || !sel[p]) continue;
      if (chosenThread && (chosenThread[0] !== p || chosenThread[1] !== th)) continue;
      var fl = leafOf ? leafOf[i / STRIDE] : T.fn[lf];
      if (fl < 0 || !pass[fl]) continue;
      sub[lf] += v;
      var lk = T.func[lf] * 2097152 + T.line[lf];
      leaf.set(lk, (leaf.get(lk) || 0) + v);
    }
    for (i = T.n; i >= 1; i--) sub[T.parent[i]] += sub[i];
    return { sub: sub, leaf: leaf };
  }
  function renderLines() {
    var box = $("lines");
    box.textContent = "";
    var c = lineCounts(), sub = c.sub, leafL = c.leaf, shown = sub[0];
    var scope = [];
    if (zoom) scope.push("under " + label(zoom));
    if (matchFunc) scope.push("matching the search");
    $("lines-scope").textContent = "samples per source line of the stacks shown" +
      (scope.length ? ", " + scope.join(", ") : "") + " (" + fmt(shown) + " samples); " +
      "the function chosen in the graph or the table first";
    $("lines-scope").dataset.samples = shown;
    var self = new Float64Array(NF), i;
    leafL.forEach(function (v, k) { self[Math.floor(k / 2097152)] += v; });
    var top = [];
    for (i = 0; i < NF; i++) if (self[i] > 0 && i !== chosenFunc) top.push(i);
    top.sort(function (a, b) { return self[b] - self[a]; });
    var want = new Uint8Array(NF), ftotal = new Float64Array(NF), lineTot = new Map();
    if (chosenFunc >= 0) {
      /* the chosen function, whatever its self samples, if it is shown */
      for (i = 1; i <= T.n; i++)
        if (T.func[i] === chosenFunc && sub[i]) { top.unshift(chosenFunc); break; }
    }
    top = top.slice(0, LINE_FUNCS);
    if (!top.length) { box.appendChild(el("p", "hint", "no samples in this selection")); return; }
    top.forEach(function (f) { want[f] = 1; });
    for (i = 1; i <= T.n; i++) {
      var fu = T.func[i];
      if (!want[fu] || !sub[i]) continue;
      if (outerFunc[i]) ftotal[fu] += sub[i];
      if (outerLine[i]) {
        var k = fu * 2097152 + T.line[i];
        lineTot.set(k, (lineTot.get(k) || 0) + sub[i]);
      }
    }
    var hot = -1, hotv = 0;
    leafL.forEach(function (v, k) {
      if (want[Math.floor(k / 2097152)] && v > hotv) { hotv = v; hot = k; }
    });
    top.forEach(function (f) {
      var lines = [], lo = fline[f] || Infinity, hi = 0;
      lineTot.forEach(function (v, k) {
        if (Math.floor(k / 2097152) !== f) return;
        var l = k % 2097152;
        lines.push(l);
        if (l < lo) lo = l;
        if (l > hi) hi = l;
      });
      var src = source.get(ffile[f]), show = [];
      /* a module's code is shown around its sampled lines only: from
       * line 1 down to them is mostly imports and comments */
      if (src && hi - lo < WHOLE && fname[f] !== "<module>") {
        for (var l = lo; l <= hi; l++) if (src.has(l) || lineTot.has(f * 2097152 + l)) show.push(l);
      } else {
        var set = new Set();
        lines.forEach(function (l) {
          for (var d = src ? -CONTEXT : 0; d <= (src ? CONTEXT : 0); d++)
            if (l + d >= 1 && (!src || src.has(l + d) || d === 0)) set.add(l + d);
        });
        show = Array.from(set).sort(function (a, b) { return a - b; });
      }
      var div = el("div", "func" + (f === chosenFunc ? " chosen" : "")), head = el("div", "head");
      div.dataset.func = fname[f];
      if (f === chosenFunc) div.id = "chosen-lines";
      head.appendChild(el("span", "name", fname[f]));
      head.appendChild(el("span", "loc", ffile[f] + ":" + fline[f] + (src ? "" : " \u00b7 source not available")));
      head.appendChild(el("span", "n", "self " + fmt(self[f]) + " \u00b7 total " + fmt(ftotal[f]) +
                          " samples (" + pct(ftotal[f], shown) + ")"));
      div.appendChild(head);
      var tb = el("table", "src"), hdr = tb.createTHead().insertRow();
      ["line", "self", "total", "% of fn", "", "source"].forEach(function (h) {
        var th = el("th", h === "source" ? "" : "num", h);
        hdr.appendChild(th);
      });
      var body = tb.createTBody(), prev = 0, rows = 0;
      show.some(function (l) {
        if (rows++ > 400) return true;
        if (prev && l > prev + 1) {
          var g = body.insertRow();
          g.className = "gap";
          var c = g.insertCell(); c.colSpan = 6; c.textContent = "\u22ef";
        }
        prev = l;
        var k = f * 2097152 + l, s = leafL.get(k) || 0, t = lineTot.get(k) || 0;
        var tr = body.insertRow();
        tr.className = (t ? "sampled" : "") + (k === hot ? " hot" : "");
        tr.dataset.line = l;
        if (k === hot) tr.id = "hottest-line";
        tr.appendChild(el("td", "num", String(l)));
        tr.appendChild(el("td", "num self", s ? fmt(s) : ""));
        tr.appendChild(el("td", "num", t ? fmt(t) : ""));
        tr.appendChild(el("td", "num", t ? pct(t, ftotal[f]) : ""));
        var bar = el("td", "bar"), sp = el("span");
        sp.style.width = (ftotal[f] ? Math.max(t ? 1 : 0, 100 * t / ftotal[f]) : 0) + "%";
        bar.appendChild(sp);
        tr.appendChild(bar);
        tr.appendChild(el("td", "code", src && src.has(l) ? src.get(l) : ""));
        return false;
      });
      div.appendChild(tb);
      box.appendChild(div);
    });
  }

  /* ---------------------------------------------------------- functions table */
  var fnSort = "total", chosenFunc = -1, searchFromTable = false;
  var FN_ROWS = 300;
  function fnCells(f) {
    return [fname[f], ffile[f] + ":" + fline[f], fmt(funcSelf[f]), pct(funcSelf[f], total),
            secs(funcSelfSec[f]), fmt(funcTot[f]), pct(funcTot[f], total), secs(funcTotSec[f])];
  }
  function renderFuncs() {
    var box = $("funcs");
    box.textContent = "";
    var list = [];
    for (var f = 0; f < NF; f++)
      if (funcTot[f] > 0 && (!matchFunc || searchFromTable || matchFunc[f])) list.push(f);
    var key = fnSort === "self" ? funcSelf : fnSort === "name" ? null : funcTot;
    list.sort(function (a, b) {
      if (!key) return fname[a] < fname[b] ? -1 : fname[a] > fname[b] ? 1 : a - b;
      return key[b] - key[a] || a - b;
    });
    var tb = el("table", "fn"), hr = tb.createTHead().insertRow();
    [["name", "function"], ["", "file:line"], ["self", "self"], ["self", "%"], ["self", "self s"],
     ["total", "total"], ["total", "%"], ["total", "total s"]].forEach(function (h, i) {
      var th = el("th", i < 2 ? "name" : "", h[1]);
      if (h[0]) { th.onclick = function () { fnSort = h[0]; renderFuncs(); }; th.dataset.sort = h[0]; }
      hr.appendChild(th);
    });
    var body = tb.createTBody();
    list.slice(0, FN_ROWS).forEach(function (f) {
      var tr = body.insertRow();
      tr.className = "row" + (f === chosenFunc ? " chosen" : "");
      tr.dataset.func = fname[f];
      fnCells(f).forEach(function (c, i) { tr.insertCell().textContent = c; tr.cells[i].className = i < 2 ? "name" : ""; });
      tr.onclick = function () { chooseFunc(f, true); };
    });
    box.appendChild(tb);
    if (list.length > FN_ROWS)
      box.appendChild(el("p", "hint", (list.length - FN_ROWS) + " more functions (search to find one)"));
    if (!list.length) box.appendChild(el("p", "hint", "no samples in this selection"));
    renderSandwich();
  }
  /* Callers and callees of the chosen function, merged over every place
   * it is called: a caller's weight is the samples of the calls it made
   * (each outermost call once), a callee's the samples under calls from
   * the function. */
  function renderSandwich() {
    var box = $("sandwich");
    box.textContent = "";
    if (chosenFunc < 0 || !subtree || !funcTot[chosenFunc]) {
      box.appendChild(el("p", "hint", "choose a function for its callers and callees"));
      return;
    }
    var F = chosenFunc, callers = new Map(), callees = new Map();
    for (var i = 1; i <= T.n; i++) {
      if (!subtree[i]) continue;
      if (T.func[i] === F && outerFunc[i]) {
        var up = T.parent[i] ? T.func[T.parent[i]] : -1;
        callers.set(up, (callers.get(up) || 0) + subtree[i]);
      }
      if (T.parent[i] && T.func[T.parent[i]] === F && T.func[i] !== F)
        callees.set(T.func[i], (callees.get(T.func[i]) || 0) + subtree[i]);
    }
    box.appendChild(el("h3", "", fname[F] + " \u00b7 self " + fmt(funcSelf[F]) + " \u00b7 total " +
                          fmt(funcTot[F]) + " samples (" + secs(funcTotSec[F]) + ")"));
    [["callers", callers], ["callees", callees]].forEach(function (part) {
      box.appendChild(el("h3", "", part[0]));
      var rows = Array.from(part[1].entries()).sort(function (a, b) { return b[1] - a[1]; });
      var tb = el("table", "fn");
      tb.id = part[0];
      var hr = tb.createTHead().insertRow();
      ["function", "samples", "% of " + fname[F]].forEach(function (h, i) {
        hr.appendChild(el("th", i ? "" : "name", h));
      });
      var body = tb.createTBody();
      rows.forEach(function (r) {
        var tr = body.insertRow();
        tr.className = r[0] >= 0 ? "row" : "";
        tr.dataset.func = r[0] >= 0 ? fname[r[0]] : "";
        tr.dataset.samples = r[1];
        [r[0] >= 0 ? fname[r[0]] : "(process start)", fmt(r[1]), pct(r[1], funcTot[F])]
          .forEach(function (c, i) { tr.insertCell().textContent = c; tr.cells[i].className = i ? "" : "name"; });
        if (r[0] >= 0) tr.onclick = function () { chooseFunc(r[0], true); };
      });
      if (!rows.length) box.appendChild(el("p", "hint", part[0] === "callers" ? "none" : "none: all self"));
      else box.appendChild(tb);
    });
  }
  /* A function chosen in the table (mark=true: mark it in the graph by
   * searching for it) or by a click in the graph. */
  function chooseFunc(f, mark) {
    chosenFunc = f;
    if (mark) {
      searchFromTable = true;
      $("search").value = "^" + fname[f].replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
      setSearch();
      draw();
    }
    renderFuncs();
    renderLines();
    saveState();
  }

  /* ---------------------------------------------------------- wiring */
  function refresh() {
    selectProcs();
    compute();
    countMatched();
    renderTotals();
    if (!DIFF) { renderProcs(); renderThreads(); }
    renderLines();
    renderFuncs();
    draw();
    toRoot();
    saveState();
  }
  /* A flame graph's root is at the bottom: start there. */
  function toRoot() {
    var g = $("graph");
    g.scrollTop = $("icicle").checked ? 0 : g.scrollHeight;
  }
  function chooseProc(i) {
    chosenProc = i;
    chosenThread = null;
    zoom = 0; history = [];
    refresh();
  }
  var MODE0 = mode;
  document.querySelectorAll("input[name=mode]").forEach(function (r) {
    r.checked = +r.value === mode;
    r.addEventListener("change", function () { mode = +r.value; refresh(); });
  });
  $("subtree").addEventListener("change", refresh);
  $("thread").addEventListener("change", function () {
    var v = $("thread").value;
    chosenThread = v ? v.split(":").map(Number) : null;
    refresh();
  });
  $("icicle").addEventListener("change", function () { draw(); toRoot(); saveState(); });
  $("view").addEventListener("change", function () {
    view = +$("view").value;
    makeView(view);
    zoom = 0; history = [];
    refresh();
  });
  $("search").addEventListener("input", function () {
    searchFromTable = false;
    setSearch(); draw(); renderFuncs(); renderLines(); saveState();
  });
  $("back").addEventListener("click", back);
  $("reset").addEventListener("click", function () { zoomTo(0); });

  /* ---------------------------------------------------------- keyboard */
  /* Arrows move a cursor over the drawn boxes (left and right on its row,
   * up and down as drawn: towards the leaves or the root), Enter zooms to
   * it, "/" goes to the search, Esc (or Backspace) zooms back one step;
   * Esc in the search leaves it. */
  function rectOf(f) {
    for (var i = 0; rects && i < rects.f.length; i++) if (rects.f[i] === f) return i;
    return -1;
  }
  function moveCursor(key) {
    var c = rectOf(cursor);
    if (c < 0) { cursor = zoom; c = rectOf(cursor); if (c < 0) return; }
    else {
      var d = rects.d[c], mid = rects.x[c] + rects.w[c] / 2, best = -1, i;
      var deeper = (key === "ArrowUp") !== $("icicle").checked;
      if (key === "ArrowLeft" || key === "ArrowRight") {
        for (i = 0; i < rects.f.length; i++) {
          if (rects.d[i] !== d || i === c) continue;
          var before = rects.x[i] < rects.x[c];
          if (key === "ArrowLeft" ? before && (best < 0 || rects.x[i] > rects.x[best])
                                  : !before && (best < 0 || rects.x[i] < rects.x[best])) best = i;
        }
      } else {
        var row = deeper ? d + 1 : d - 1;
        for (i = 0; i < rects.f.length; i++) {
          if (rects.d[i] !== row) continue;
          var over = rects.x[i] <= mid && mid < rects.x[i] + rects.w[i];
          var inside = rects.x[i] >= rects.x[c] - 0.01 && rects.x[i] < rects.x[c] + rects.w[c];
          /* the box above or below the cursor's middle, else the widest
           * of the cursor's children */
          if (over) { best = i; break; }
          if (deeper && inside && (best < 0 || rects.w[i] > rects.w[best])) best = i;
        }
      }
      if (best < 0) return;
      cursor = rects.f[best];
      c = best;
    }
    draw();
    /* keep the cursor in view, its tooltip beside it */
    var g = $("graph"), top = rects.y[c] - g.scrollTop;
    if (top < 0 || top + RH > g.clientHeight) g.scrollTop = rects.y[c] - g.clientHeight / 2;
    var r = canvas.getBoundingClientRect();
    showTip(cursor, r.left + rects.x[c] + Math.min(rects.w[c] / 2, 40), r.top + rects.y[c] + RH / 2);
  }
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, tag = t && t.tagName;
    if (tag === "INPUT" && (t.type === "search" || t.type === "text")) {
      if (ev.key === "Escape") { t.blur(); ev.preventDefault(); }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey || tag === "TEXTAREA") return;
    /* a focused control keeps its own arrows, Enter and Space */
    var control = tag === "INPUT" || tag === "SELECT" || tag === "BUTTON";
    if (ev.key === "/") { ev.preventDefault(); $("search").focus(); $("search").select(); }
    else if (ev.key === "Escape" || (ev.key === "Backspace" && tag !== "SELECT")) {
      ev.preventDefault();
      back();
    }
    else if (control) return;
    else if (/^Arrow(Up|Down|Left|Right)$/.test(ev.key)) { ev.preventDefault(); moveCursor(ev.key); }
    else if (ev.key === "Enter" && cursor >= 0) {
      ev.preventDefault();
      if (cursor > 0 && fnFunc[cursor] >= 0) chooseFunc(fnFunc[cursor], false);
      zoomTo(cursor);
    }
  });

  /* ---------------------------------------------------------- the address */
  /* The view is kept in the page's address after "#", so that a reload or
   * a link shows it again: mode, view, process (its index in the page),
   * subtree, thread, search, zoom (the functions from the root down),
   * icicle, the chosen function.  replaceState: no history entry each. */
  var restoring = false;
  function stateString() {
    var q = [];
    if (mode !== MODE0) q.push("mode=" + MODES[mode]);
    if (view) q.push("view=" + view);
    if (chosenProc >= 0) q.push("proc=" + chosenProc);
    if (!$("subtree").checked) q.push("subtree=0");
    if (chosenThread) q.push("thread=" + chosenThread.join(":"));
    var s = $("search").value;
    if (s) q.push("q=" + encodeURIComponent(s));
    var path = [];
    for (var a = zoom; a; a = fnParent[a]) path.push(fnFunc[a]);
    if (path.length) q.push("zoom=" + path.reverse().join("."));
    if ($("icicle").checked) q.push("icicle=1");
    if (chosenFunc >= 0) q.push("fn=" + chosenFunc);
    return q.length ? "#" + q.join("&") : "";
  }
  function saveState() {
    if (restoring || DIFF) return;
    var h = stateString();
    if (h === location.hash || (!h && !location.hash)) return;
    try {
      window.history.replaceState(null, "", h || location.pathname + location.search);
    } catch (e) {
      location.replace(h || "#");
    }
  }
  function applyState(h) {
    var a = new URLSearchParams(h.replace(/^#/, "")), n;
    restoring = true;
    n = MODES.indexOf(a.get("mode") || "");
    mode = n >= 0 ? n : MODE0;
    document.querySelectorAll("input[name=mode]").forEach(function (r) { r.checked = +r.value === mode; });
    n = parseInt(a.get("view"), 10);
    view = n === 1 || n === 2 ? n : 0;
    $("view").value = String(view);
    makeView(view);
    n = a.has("proc") ? parseInt(a.get("proc"), 10) : -1;
    chosenProc = n >= 0 && n < NP && procs[n].folded_into < 0 ? n : -1;
    $("subtree").checked = a.get("subtree") !== "0";
    var th = /^(\d+):(\d+)$/.exec(a.get("thread") || "");
    chosenThread = th && +th[1] < NP && procs[+th[1]].threads[+th[2]] ? [+th[1], +th[2]] : null;
    $("search").value = a.get("q") || "";
    searchFromTable = false;
    setSearch();
    $("icicle").checked = a.get("icicle") === "1";
    n = a.has("fn") ? parseInt(a.get("fn"), 10) : -1;
    chosenFunc = n >= 0 && n < NF ? n : -1;
    zoom = 0; history = []; cursor = -1;
    (a.get("zoom") || "").split(".").every(function (x) {
      var f = x === "" ? undefined : fnIndex.get(zoom * NF + (+x));
      if (f === undefined) return false;
      zoom = f;
      return true;
    });
    refresh();
    restoring = false;
    saveState();
  }
  window.addEventListener("hashchange", function () {
    if (location.hash !== stateString()) applyState(location.hash);
  });
  window.addEventListener("resize", draw);
  $("title").textContent = (DIFF ? "diff \u00b7 " : "") + (D.title || "");
  document.title = "pyprof " + (DIFF ? "diff " : "") + (D.title || "");
  if (!DIFF)
    $("legend").innerHTML = "<i style=\"background:hsl(20,82%,64%)\"></i> the program's code " +
      "<i style=\"background:hsl(48,70%,72%)\"></i> the standard library and installed packages " +
      "<i style=\"background:#b9c3d6\"></i> not code (&lt;GC&gt;, &lt;task&gt;, process and thread roots)";
  if (DIFF) {
    document.body.classList.add("diff");
    $("thread-group").hidden = true;
    $("view-group").hidden = true;
    $("legend").innerHTML = "<i style=\"background:hsl(218,78%,60%)\"></i> smaller share than base " +
                            "<i style=\"background:hsl(0,78%,60%)\"></i> larger";
  }
  /* the tasks mode where the profile has pending asyncio tasks */
  $("tasks-mode").hidden = DIFF || !(P.samples[4] > P.samples[0]);
  if (location.hash && !DIFF) applyState(location.hash);
  else refresh();
  /* For tests and the console: where a function's first drawn box is. */
  window.pyprof = {
    zoom: function () { return label(zoom); },
    cursor: function () { return cursor >= 0 ? label(cursor) : null; },
    message: function () { return shownMessage; },
    /* the root's children drawn: [label, samples] */
    roots: function () {
      return sortedKids(0).map(function (f) { return [label(f), ftot[f]]; });
    },
    /* the rows drawn, the canvas's height in rows */
    rows: function () { return rects ? rects.maxd + 1 : 0; },
    /* the label of the box at a point of the window, or null */
    under: function (x, y) {
      var f = at({ clientX: x, clientY: y });
      return f >= 0 ? label(f) : null;
    },
    box: function (name) {
      for (var i = 0; rects && i < rects.f.length; i++)
        if (label(rects.f[i]) === name) {
          var r = canvas.getBoundingClientRect();
          return { x: r.left + rects.x[i], y: r.top + rects.y[i], w: rects.w[i], h: RH };
        }
      return null;
    }
  };
})();
