/* The review page of `rigkit retarget --html` (retarget_html.h): the clips' report entries and
 * motions as JSON in the page, the table and the player in an inline script. The page fetches
 * nothing: it must open from a mail attachment or an air-gapped farm as well as from disk. */
#include "retarget_html.h"

#include "retarget_silhouette.h"

#include <rigkit/fk.h>
#include <rigkit/json_text.h>

#include <string.h>

/* Frame of sample s of `samples` spread over `frames` (the first and the last included). */
static size_t sample_frame(size_t s, size_t samples, size_t frames) {
  if (samples <= 1 || frames <= samples)
    return s;
  return (size_t)llround((double)s * (double)(frames - 1) / (double)(samples - 1));
}

void rk__rt_html_body(const rk_humanoid_map *map, const rk_skeleton *mapped, const rk_skeleton *in,
                      int body[RK__RT_HTML_BODY]) {
  const int from[RK__RT_HTML_BODY] = {map->joint[RK_BONE_HIPS], map->detached_foot[0],
                                      map->detached_foot[1]};
  for (int b = 0; b < RK__RT_HTML_BODY; b++)
    body[b] = from[b] < 0 ? -1 : rk_skeleton_find_joint(in, rk_skeleton_joint_name(mapped, (size_t)from[b]));
}

/* Whether joint j is drawn as the body: in the subtree of one of body[] (-1: none), or every
 * joint when body[0] (the hips) is unknown. */
static bool drawn(const rk_skeleton *sk, const int body[RK__RT_HTML_BODY], size_t j) {
  if (body[0] < 0)
    return true;
  for (int b = 0; b < RK__RT_HTML_BODY; b++)
    if (body[b] >= 0 && rk_skeleton_is_ancestor(sk, (size_t)body[b], j))
      return true;
  return false;
}

/* {"parents": [...], "drawn": [0 or 1 per joint], "center": the hips or 0, "pos": [[x, y, z, ...]
 * per sample]} in millimetres; the model matrices of every sample into all[samples * n]. */
static void append_rig(GString *s, const rk_skeleton *sk, const int body[RK__RT_HTML_BODY],
                       const rk_clip *clip, double fps, size_t frames, size_t samples, bool by_frame,
                       rk_mat4 *all) {
  const size_t n = rk_skeleton_joint_count(sk);
  g_autofree rk_transform *locals = g_new(rk_transform, n ? n : 1);
  g_string_append(s, "{\"parents\":[");
  for (size_t j = 0; j < n; j++)
    g_string_append_printf(s, "%s%d", j ? "," : "", rk_skeleton_parent(sk, j));
  g_string_append(s, "],\"drawn\":[");
  for (size_t j = 0; j < n; j++)
    g_string_append_printf(s, "%s%d", j ? "," : "", drawn(sk, body, j));
  g_string_append_printf(s, "],\"center\":%d,\"pos\":[", body[0] >= 0 ? body[0] : 0);
  for (size_t k = 0; k < samples; k++) {
    const size_t f = sample_frame(k, samples, frames);
    if (by_frame)
      rk_clip_sample_frame(clip, rk_skeleton_rest_locals(sk), fps, f, locals, n);
    else
      rk_clip_sample(clip, rk_skeleton_rest_locals(sk), (double)f / fps, locals, n);
    rk_mat4 *models = all + k * n;
    rk_fk_models(sk, locals, models);
    g_string_append(s, k ? ",[" : "[");
    for (size_t j = 0; j < n; j++)
      for (int a = 0; a < 3; a++) {
        const double mm = 1000.0 * models[j].m[12 + a];
        g_string_append_printf(s, "%s%.0f", j || a ? "," : "", isfinite(mm) ? mm : 0.0);
      }
    g_string_append_c(s, ']');
  }
  g_string_append(s, "]}");
}

char *rk__rt_html_motion(const rk__rt_html_clip *c) {
  const size_t samples = MIN(c->frames, (size_t)RK__RT_HTML_FRAMES);
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "{\"fps\":%.6g,\"frames\":%zu,\"floor\":%.0f,\"sample_frames\":[",
                         c->fps, c->frames, 1000.0 * c->floor);
  for (size_t k = 0; k < samples; k++)
    g_string_append_printf(s, "%s%zu", k ? "," : "", sample_frame(k, samples, c->frames));
  g_string_append(s, "],\"source\":");
  const size_t ns = rk_skeleton_joint_count(c->source), nt = rk_skeleton_joint_count(c->target);
  g_autofree rk_mat4 *models = g_new(rk_mat4, MAX(ns, nt) * samples + 1);
  append_rig(s, c->source, c->source_body, c->source_clip, c->fps, c->frames, samples, false, models);
  g_string_append(s, ",\"target\":");
  append_rig(s, c->target, c->target_body, c->target_clip, c->fps, c->frames, samples, true, models);
  g_string_truncate(s, s->len - 1); /* the target's closing brace: its skin goes inside */
  rk__rt_silhouette_append_turns(s, c->silhouette, c->target, models, samples);
  g_string_append_c(s, '}');
  /* The feet's lowest points above the floor at every output frame, for the foot plot. */
  g_string_append(s, ",\"feet\":[");
  for (int side = 0; side < 2; side++) {
    g_string_append(s, side ? ",[" : "[");
    for (size_t f = 0; f < c->frames; f++) {
      const double mm = 1000.0 * (c->foot_low[f * 2 + (size_t)side] - c->floor);
      g_string_append_printf(s, "%s%.1f", f ? "," : "", isfinite(mm) ? mm : 0.0);
    }
    g_string_append_c(s, ']');
  }
  g_string_append(s, "]}");
  return g_string_free(s, FALSE);
}

/* JSON text made safe inside a <script> element: "</" cannot end it. */
static void append_script_json(GString *page, const char *id, const char *json) {
  g_string_append_printf(page, "<script type=\"application/json\" id=\"%s\">", id);
  for (const char *p = json; *p; p++) {
    if (p[0] == '<' && p[1] == '/')
      g_string_append(page, "<\\");
    else
      g_string_append_c(page, *p);
  }
  g_string_append(page, "</script>\n");
}

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<title>rigkit retarget review</title>\n<style>\n"
    "body{font:14px system-ui,sans-serif;margin:1em;color:#222}\n"
    "table{border-collapse:collapse;width:100%}\n"
    "th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;white-space:nowrap}\n"
    "th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.warn{white-space:normal;max-width:28em}\n"
    "tr.row{cursor:pointer}tr.row:hover{background:#eef}tr.open{background:#dde}\n"
    ".clean{color:#176c2c}.check{color:#9a6400}.failed{color:#b00020;font-weight:bold}\n"
    "#player{margin:1em 0;padding:.5em;border:1px solid #ccc;display:none}\n"
    "#player canvas{display:block;border:1px solid #eee;margin:.3em 0;max-width:100%}\n"
    "#error{color:#b00020;white-space:pre-wrap}\n"
    "#silhouette{color:#555;margin:0}\n"
    "</style></head><body>\n";

static const char page_body[] =
    "<h1>rigkit retarget review</h1>\n<p id=\"summary\"></p>\n"
    "<p><label>Verdict <select id=\"filter\"><option value=\"\">all</option>"
    "<option>clean</option><option>check</option><option>failed</option></select></label>"
    " <span id=\"shown\"></span></p>\n"
    "<div id=\"player\"><h2 id=\"title\"></h2><p id=\"error\"></p><div id=\"stage\">"
    "<canvas id=\"view\" width=\"900\" height=\"420\"></canvas><p id=\"silhouette\"></p>"
    "<button id=\"play\">play</button> <input id=\"scrub\" type=\"range\" min=\"0\" value=\"0\" "
    "style=\"width:60%\"> <span id=\"time\"></span>"
    "<canvas id=\"timeline\" width=\"900\" height=\"220\"></canvas>"
    "<p id=\"warnings\"></p></div></div>\n"
    "<table id=\"clips\"><thead><tr></tr></thead><tbody></tbody></table>\n";

/* The table and the player. Data: #rk-batch (the report's members), #rk-motion-K (clip K's),
 * #rk-mesh (the target's mesh for its silhouette). */
static const char page_script[] =
    "<script>\n'use strict';\n(function () {\n"
    "const $ = (id) => document.getElementById(id);\n"
    "const batch = JSON.parse($('rk-batch').textContent);\n"
    "const clips = batch.clips;\n"
    "const meshNode = $('rk-mesh'), mesh = meshNode ? JSON.parse(meshNode.textContent) : null;\n"
    "const MESH = [0x9a, 0xb8, 0xd8, 255]; /* the silhouette's colour */\n"
    "/* Each vertex's influences flattened: start[v] .. start[v + 1] into slot, weight, offset. */\n"
    "if (mesh && mesh.draw) {\n"
    "  const v = mesh.vertices, start = [0], slot = [], wt = [], off = [];\n"
    "  for (let i = 0; i < v.length;) {\n"
    "    const n = v[i++];\n"
    "    for (let k = 0; k < n; k++, i += 5) { slot.push(v[i]); wt.push(v[i + 1]); off.push(v[i + 2], v[i + 3], v[i + 4]); }\n"
    "    start.push(slot.length);\n"
    "  }\n"
    "  mesh.flat = {start: start, slot: slot, wt: wt, off: off, count: start.length - 1};\n"
    "}\n"
    "const base = (p) => (p || '').split(/[\\\\/]/).pop();\n"
    "const sub = (o, k) => (o && typeof o === 'object' ? o[k] : null);\n"
    "const cols = [\n"
    "  ['clip', (c) => c.clip || '(file)'], ['source', (c) => base(c.source)],\n"
    "  ['verdict', (c) => c.verdict || ''],\n"
    "  ['warnings', (c) => c.error ? c.error_code : c.warnings.map((w) => w.code).join(', ')],\n"
    "  ['skate mm', (c) => sub(c.foot_skate_mm, 'max'), 1],\n"
    "  ['goal mm', (c) => sub(c.ik_goal_error_mm, 'max'), 1],\n"
    "  ['soles mm', (c) => sub(c.mesh_lowest_planted_mm, 'median'), 1],\n"
    "  ['pitch deg', (c) => sub(c.foot_pitch_deg, 'p95'), 1],\n"
    "  ['pose mm', (c) => sub(c.pose_error_mm, 'max'), 1],\n"
    "  ['ground mm', (c) => c.ground_offset_mm, 1],\n"
    "  ['frames', (c) => c.frames, 0], ['output', (c) => base(c.output)]];\n"
    "const head = document.querySelector('#clips thead tr');\n"
    "const tbody = document.querySelector('#clips tbody');\n"
    "let order = clips.map((c, i) => i), sortCol = -1, sortDir = 1;\n"
    "cols.forEach((col, k) => {\n"
    "  const th = document.createElement('th');\n"
    "  th.textContent = col[0];\n"
    "  th.onclick = () => { sortDir = sortCol === k ? -sortDir : 1; sortCol = k; render(); };\n"
    "  head.appendChild(th);\n"
    "});\n"
    "function cmp(a, b) {\n"
    "  const x = cols[sortCol][1](clips[a]), y = cols[sortCol][1](clips[b]);\n"
    "  if (x === y) return a - b;\n"
    "  if (x === null || x === undefined) return 1;\n"
    "  if (y === null || y === undefined) return -1;\n"
    "  return (x < y ? -1 : 1) * sortDir;\n"
    "}\n"
    "function render() {\n"
    "  if (sortCol >= 0) order.sort(cmp);\n"
    "  const want = $('filter').value;\n"
    "  tbody.textContent = '';\n"
    "  let shown = 0;\n"
    "  for (const i of order) {\n"
    "    const c = clips[i];\n"
    "    if (want && c.verdict !== want) continue;\n"
    "    shown++;\n"
    "    const tr = document.createElement('tr');\n"
    "    tr.className = 'row' + (i === current ? ' open' : '');\n"
    "    tr.dataset.index = i;\n"
    "    tr.dataset.verdict = c.verdict || '';\n"
    "    for (const col of cols) {\n"
    "      const td = document.createElement('td');\n"
    "      const v = col[1](c);\n"
    "      const num = col.length > 2; /* col[2]: the decimals shown */\n"
    "      td.textContent = num ? (v === null || v === undefined ? '-' : Number(v).toFixed(col[2]))\n"
    "                           : (v === undefined || v === null ? '' : String(v));\n"
    "      if (num) td.className = 'num';\n"
    "      if (col[0] === 'verdict') td.className = c.verdict || '';\n"
    "      if (col[0] === 'warnings') {\n"
    "        td.className = 'warn';\n"
    "        td.title = c.error || c.warnings.map((w) => w.message).join('\\n');\n"
    "      }\n"
    "      tr.appendChild(td);\n"
    "    }\n"
    "    tr.onclick = () => open(i, 0);\n"
    "    tbody.appendChild(tr);\n"
    "  }\n"
    "  $('shown').textContent = shown + ' of ' + clips.length + ' clips';\n"
    "}\n"
    "$('filter').onchange = render;\n"
    "const s = batch.summary || {};\n"
    "$('summary').textContent = 'Target ' + batch.target + ': ' + s.clips + ' clips, ' + s.ok +\n"
    "  ' ok, ' + s.error + ' failed; verdicts: ' + ['clean', 'check', 'failed'].map((v) =>\n"
    "  clips.filter((c) => c.verdict === v).length + ' ' + v).join(', ');\n"
    "let current = -1, motion = null, frame = 0, playing = false, last = 0;\n"
    "/* [widest pose, unused, lowest y, highest y] of the drawn joints and the mesh: the view follows\n"
    " * the rig's hips, scaled to its poses (controls and the root left at the origin do not count). */\n"
    "function bounds(rig) {\n"
    "  let b = [1, 0, Infinity, -Infinity];\n"
    "  for (const p of rig.pos) {\n"
    "    let lo = Infinity, hi = -Infinity;\n"
    "    for (let j = 0; j < p.length; j += 3) {\n"
    "      if (!rig.drawn[j / 3]) continue;\n"
    "      const u = proj(p, j);\n"
    "      lo = Math.min(lo, u); hi = Math.max(hi, u);\n"
    "      b[2] = Math.min(b[2], p[j + 1]); b[3] = Math.max(b[3], p[j + 1]);\n"
    "    }\n"
    "    b[0] = Math.max(b[0], hi - lo);\n"
    "  }\n"
    "  for (const q of rig.mesh2d || []) {\n"
    "    let lo = Infinity, hi = -Infinity;\n"
    "    for (let i = 0; i < q.length; i += 2) {\n"
    "      lo = Math.min(lo, q[i]); hi = Math.max(hi, q[i]);\n"
    "      b[2] = Math.min(b[2], q[i + 1]); b[3] = Math.max(b[3], q[i + 1]);\n"
    "    }\n"
    "    b[0] = Math.max(b[0], hi - lo);\n"
    "  }\n"
    "  return b;\n"
    "}\n"
    "const proj = (p, j) => p[j] * 0.8 + p[j + 2] * 0.6;\n"
    "/* The target's mesh at every sample, projected as its joints are (u, y per vertex): linear\n"
    " * blend skinning, each joint at its position in rig.pos turned from rest by its quaternion. */\n"
    "function skinTarget(m) {\n"
    "  const rig = m.target, f = mesh.flat, sk = rig.skin, S = sk.joints.length;\n"
    "  const bin = atob(sk.turns), dv = new DataView(new ArrayBuffer(bin.length));\n"
    "  for (let i = 0; i < bin.length; i++) dv.setUint8(i, bin.charCodeAt(i));\n"
    "  const R = new Float64Array(9 * S), T = new Float64Array(3 * S);\n"
    "  rig.mesh2d = rig.pos.map((p, k) => {\n"
    "    for (let s = 0; s < S; s++) {\n"
    "      const q = [0, 1, 2, 3].map((c) => dv.getInt16(8 * (k * S + s) + 2 * c, true) / 32767);\n"
    "      const [x, y, z, w] = q, r = R.subarray(9 * s);\n"
    "      r[0] = 1 - 2 * (y * y + z * z); r[1] = 2 * (x * y + z * w); r[2] = 2 * (x * z - y * w);\n"
    "      r[3] = 2 * (x * y - z * w); r[4] = 1 - 2 * (x * x + z * z); r[5] = 2 * (y * z + x * w);\n"
    "      r[6] = 2 * (x * z + y * w); r[7] = 2 * (y * z - x * w); r[8] = 1 - 2 * (x * x + y * y);\n"
    "      for (let a = 0; a < 3; a++) T[3 * s + a] = p[3 * sk.joints[s] + a];\n"
    "    }\n"
    "    const out = new Float32Array(2 * f.count);\n"
    "    for (let v = 0; v < f.count; v++) {\n"
    "      let X = 0, Y = 0, Z = 0;\n"
    "      for (let i = f.start[v]; i < f.start[v + 1]; i++) {\n"
    "        const s = f.slot[i], w = f.wt[i], r = R.subarray(9 * s);\n"
    "        const a = f.off[3 * i], b = f.off[3 * i + 1], c = f.off[3 * i + 2];\n"
    "        X += w * (T[3 * s] + r[0] * a + r[3] * b + r[6] * c);\n"
    "        Y += w * (T[3 * s + 1] + r[1] * a + r[4] * b + r[7] * c);\n"
    "        Z += w * (T[3 * s + 2] + r[2] * a + r[5] * b + r[8] * c);\n"
    "      }\n"
    "      out[2 * v] = X * 0.8 + Z * 0.6; out[2 * v + 1] = Y;\n"
    "    }\n"
    "    return out;\n"
    "  });\n"
    "}\n"
    "function open(i, f) {\n"
    "  current = i; playing = false;\n"
    "  const c = clips[i];\n"
    "  $('player').style.display = 'block';\n"
    "  $('title').textContent = base(c.source) + (c.clip ? \" clip '\" + c.clip + \"'\" : '') +\n"
    "    ' -> ' + (c.output ? base(c.output) : '(no output)') + ': ' + (c.verdict || '');\n"
    "  $('title').className = c.verdict || '';\n"
    "  $('error').textContent = c.error ? 'error: [' + c.error_code + '] ' + c.error : '';\n"
    "  const m = $('rk-motion-' + i);\n"
    "  motion = m ? JSON.parse(m.textContent) : null;\n"
    "  $('stage').style.display = motion ? 'block' : 'none';\n"
    "  if (!motion && !c.error) $('error').textContent = 'its output could not be read back: no motion to play';\n"
    "  if (motion) {\n"
    "    const drawn = mesh && mesh.draw && motion.target.skin;\n"
    "    if (drawn) skinTarget(motion);\n"
    "    $('silhouette').textContent = !mesh ? '' : drawn || !mesh.draw ? mesh.note :\n"
    "      \"the output's joints are not the target's: skeleton only\";\n"
    "    motion.source.b = bounds(motion.source);\n"
    "    motion.target.b = bounds(motion.target);\n"
    "    $('scrub').max = motion.sample_frames.length - 1;\n"
    "    $('warnings').textContent = c.warnings.map((w) => w.code + ': ' + w.message).join('\\n');\n"
    "    draw(f);\n"
    "  }\n"
    "  render();\n"
    "}\n"
    "/* The silhouette: each triangle filled into the picture's pixels where it covers their centres\n"
    " * (a canvas path of 20,000 triangles takes a second to fill; this takes milliseconds). */\n"
    "function fillMesh(g, m, X, Y, x0, w, h) {\n"
    "  const img = g.getImageData(x0, 0, w, h), d = img.data, t = mesh.triangles;\n"
    "  const p = new Float32Array(m.length);\n"
    "  for (let i = 0; i < m.length; i += 2) { p[i] = X(m[i]) - x0; p[i + 1] = Y(m[i + 1]); }\n"
    "  const edge = (ax, ay, bx, by, x, y) => (bx - ax) * (y - ay) - (by - ay) * (x - ax);\n"
    "  for (let i = 0; i < t.length; i += 3) {\n"
    "    const ax = p[2 * t[i]], ay = p[2 * t[i] + 1];\n"
    "    let bx = p[2 * t[i + 1]], by = p[2 * t[i + 1] + 1], cx = p[2 * t[i + 2]], cy = p[2 * t[i + 2] + 1];\n"
    "    if (edge(ax, ay, bx, by, cx, cy) < 0) [bx, by, cx, cy] = [cx, cy, bx, by];\n"
    "    const x1 = Math.max(0, Math.floor(Math.min(ax, bx, cx))), x2 = Math.min(w - 1, Math.ceil(Math.max(ax, bx, cx)));\n"
    "    const y1 = Math.max(0, Math.floor(Math.min(ay, by, cy))), y2 = Math.min(h - 1, Math.ceil(Math.max(ay, by, cy)));\n"
    "    for (let y = y1; y <= y2; y++)\n"
    "      for (let x = x1; x <= x2; x++) {\n"
    "        const u = x + 0.5, v = y + 0.5;\n"
    "        if (edge(ax, ay, bx, by, u, v) < 0 || edge(bx, by, cx, cy, u, v) < 0 || edge(cx, cy, ax, ay, u, v) < 0) continue;\n"
    "        d.set(MESH, 4 * (y * w + x));\n"
    "      }\n"
    "  }\n"
    "  g.putImageData(img, x0, 0);\n"
    "}\n"
    "function drawRig(g, rig, k, x0, w, h, floorY, label) {\n"
    "  const b = rig.b, pad = 20;\n"
    "  const p = rig.pos[k], low = Math.min(b[2], floorY);\n"
    "  const sc = Math.min((w - 2 * pad) / (1.2 * b[0]), (h - 2 * pad - 16) / Math.max(b[3] - low, 1));\n"
    "  const X = (u) => x0 + w / 2 + (u - proj(p, 3 * rig.center)) * sc, Y = (y) => h - pad - (y - low) * sc;\n"
    "  if (rig.mesh2d) fillMesh(g, rig.mesh2d[k], X, Y, x0, w, h);\n"
    "  g.strokeStyle = '#d00'; g.lineWidth = 2;\n"
    "  g.beginPath(); g.moveTo(x0 + 4, Y(floorY)); g.lineTo(x0 + w - 4, Y(floorY)); g.stroke();\n"
    "  g.strokeStyle = '#234'; g.lineWidth = 3; g.beginPath();\n"
    "  rig.parents.forEach((q, j) => {\n"
    "    if (q < 0 || !rig.drawn[q] || !rig.drawn[j]) return;\n"
    "    g.moveTo(X(proj(p, 3 * q)), Y(p[3 * q + 1]));\n"
    "    g.lineTo(X(proj(p, 3 * j)), Y(p[3 * j + 1]));\n"
    "  });\n"
    "  g.stroke();\n"
    "  g.fillStyle = '#222'; g.font = '14px sans-serif'; g.fillText(label, x0 + 8, 16);\n"
    "}\n"
    "function checksum(cv) {\n"
    "  const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;\n"
    "  let h = 2166136261;\n"
    "  for (let i = 0; i < d.length; i += 7) h = Math.imul(h ^ d[i], 16777619) >>> 0;\n"
    "  return h.toString(16);\n"
    "}\n"
    "/* Pixels of the silhouette's colour: the test's proof that the mesh was drawn. */\n"
    "function meshPixels(cv) {\n"
    "  const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;\n"
    "  let n = 0;\n"
    "  for (let i = 0; i < d.length; i += 4) n += d[i] === MESH[0] && d[i + 1] === MESH[1] && d[i + 2] === MESH[2] && d[i + 3] === 255;\n"
    "  return n;\n"
    "}\n"
    "function draw(k) {\n"
    "  frame = Math.max(0, Math.min(k, motion.sample_frames.length - 1));\n"
    "  const f = motion.sample_frames[frame], c = clips[current];\n"
    "  const view = $('view'), g = view.getContext('2d'), w = view.width / 2;\n"
    "  g.fillStyle = '#fff'; g.fillRect(0, 0, view.width, view.height);\n"
    "  g.strokeStyle = '#ccc'; g.beginPath(); g.moveTo(w, 0); g.lineTo(w, view.height); g.stroke();\n"
    "  drawRig(g, motion.source, frame, 0, w, view.height, motion.source.b[2], 'source (its lowest point in red)');\n"
    "  drawRig(g, motion.target, frame, w, w, view.height, motion.floor, 'target (floor in red)');\n"
    "  const tl = $('timeline'), t = tl.getContext('2d'), W = tl.width, H = tl.height;\n"
    "  const n = Math.max(motion.frames - 1, 1), X = (fr) => 90 + (W - 100) * fr / n;\n"
    "  t.fillStyle = '#fff'; t.fillRect(0, 0, W, H);\n"
    "  t.font = '11px sans-serif';\n"
    "  const joints = Object.keys(c.contacts || {});\n"
    "  joints.forEach((j, r) => {\n"
    "    t.fillStyle = '#333'; t.fillText(j.slice(0, 13), 2, 14 + r * 16);\n"
    "    t.fillStyle = '#4a8';\n"
    "    for (const iv of c.contacts[j]) t.fillRect(X(iv[0]), 4 + r * 16, Math.max(X(iv[1]) - X(iv[0]), 1), 12);\n"
    "  });\n"
    "  const top = 8 + joints.length * 16, ph = H - top - 8;\n"
    "  const all = motion.feet[0].concat(motion.feet[1]);\n"
    "  const lo = all.reduce((a, v) => Math.min(a, v), 0), hi = all.reduce((a, v) => Math.max(a, v), 1);\n"
    "  const Y = (v) => top + ph - (v - lo) / (hi - lo) * ph;\n"
    "  t.fillStyle = '#333'; t.fillText('feet mm', 2, top + 12);\n"
    "  t.strokeStyle = '#d00'; t.beginPath(); t.moveTo(90, Y(0)); t.lineTo(W - 10, Y(0)); t.stroke();\n"
    "  ['#15c', '#c51'].forEach((col, side) => {\n"
    "    t.strokeStyle = col; t.beginPath();\n"
    "    motion.feet[side].forEach((v, fr) => (fr ? t.lineTo(X(fr), Y(v)) : t.moveTo(X(fr), Y(v))));\n"
    "    t.stroke();\n"
    "  });\n"
    "  t.strokeStyle = '#000'; t.beginPath(); t.moveTo(X(f), 0); t.lineTo(X(f), H); t.stroke();\n"
    "  $('scrub').value = frame;\n"
    "  $('time').textContent = 'frame ' + f + ' / ' + motion.frames + ' (' + (f / motion.fps).toFixed(2) + ' s)';\n"
    "  view.dataset.checksum = checksum(view);\n"
    "  view.dataset.meshPixels = meshPixels(view);\n"
    "  view.dataset.frame = f;\n"
    "}\n"
    "$('scrub').oninput = () => { playing = false; draw(Number($('scrub').value)); };\n"
    "$('play').onclick = () => {\n"
    "  playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; last = 0;\n"
    "  if (playing) requestAnimationFrame(tick);\n"
    "};\n"
    "function tick(ms) {\n"
    "  if (!playing || !motion) return;\n"
    "  const per = 1000 * (motion.frames / motion.fps) / motion.sample_frames.length;\n"
    "  if (!last) last = ms;\n"
    "  if (ms - last >= per) { last = ms; draw((frame + 1) % motion.sample_frames.length); }\n"
    "  requestAnimationFrame(tick);\n"
    "}\n"
    "render();\n"
    "/* #clip=K&frame=F opens clip K at sample F (a link to one clip; headless checks). */\n"
    "const q = new URLSearchParams(location.hash.slice(1));\n"
    "if (q.has('clip')) open(Number(q.get('clip')), Number(q.get('frame') || 0));\n"
    "document.body.dataset.ready = '1';\n"
    "})();\n</script>\n</body></html>\n";

bool rk__rt_html_write(const rk__rt_config *cfg, const char *path, const rk__rt_input *inputs,
                       size_t n, const rk__rt_outcome *outcome, GError **error) {
  g_autoptr(JsonObject) root = json_object_new();
  json_object_set_string_member(root, "target", cfg->target_path);
  JsonObject *sum = json_object_new();
  json_object_set_int_member(sum, "clips", (gint64)outcome->clips);
  json_object_set_int_member(sum, "ok", (gint64)outcome->ok);
  json_object_set_int_member(sum, "error", (gint64)outcome->failed);
  json_object_set_object_member(root, "summary", sum);
  JsonArray *clips = json_array_new();
  GString *page = g_string_new(page_head);
  g_string_append(page, page_body);
  GString *motions = g_string_new(NULL);
  guint k = 0;
  for (size_t i = 0; i < n; i++)
    for (guint e = 0; inputs[i].entries && e < inputs[i].entries->len; e++, k++) {
      const rk__rt_entry *entry = g_ptr_array_index(inputs[i].entries, e);
      json_array_add_object_element(clips, rk__rt_entry_json(entry));
      if (entry->motion) {
        g_autofree char *id = g_strdup_printf("rk-motion-%u", k);
        append_script_json(motions, id, entry->motion);
      }
    }
  json_object_set_array_member(root, "clips", clips);
  g_autofree char *data = rk_json_object_to_text(root, false, NULL);
  append_script_json(page, "rk-batch", data);
  if (cfg->silhouette) {
    g_autofree char *mesh = rk__rt_silhouette_json(cfg->silhouette);
    append_script_json(page, "rk-mesh", mesh);
  }
  g_string_append_len(page, motions->str, (gssize)motions->len);
  g_string_free(motions, TRUE);
  g_string_append(page, page_script);
  const bool ok = g_file_set_contents_full(path, page->str, (gssize)page->len,
                                           G_FILE_SET_CONTENTS_CONSISTENT |
                                               G_FILE_SET_CONTENTS_DURABLE,
                                           0666, error);
  if (!ok)
    g_prefix_error(error, "--html: ");
  g_string_free(page, TRUE);
  return ok;
}
