// The village page: plain JS + SVG, no build step, no dependencies.
// Live: one server-sent-events stream of snapshots (2 per second, batched by the server).
// Replay: the same snapshots fetched at the slider's time (GET /api/scene?t=...).
'use strict'

const NS = 'http://www.w3.org/2000/svg'
const $ = (id) => document.getElementById(id)
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]))
const AREA_COLOURS = { plaza: '#d8d2c4', town_hall: '#b08a5a', farm: '#d9c36a', pasture: '#8fbf6a', forest: '#3f7a3a', hills: '#9a9a9a', lake: '#5b9bd5' }

const state = {
  mode: 'live', runId: '', selected: null, last: null, t0: 0, t1: 0, t: 0,
  playing: false, speed: 5, inFlight: false, stream: null,
  vb: null, userMoved: false, worldKey: '', chatKey: '', view3d: {}
}

function colour (name) {
  let h = 0
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0
  return `hsl(${h % 360} 65% 45%)`
}

function el (tag, attrs, parent) {
  const e = document.createElementNS(NS, tag)
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v)
  if (parent) parent.appendChild(e)
  return e
}

function fmtTime (t) {
  if (!t) return ''
  const d = new Date(t * 1000)
  return d.toLocaleTimeString([], { hour12: false })
}

function fmtDur (s) {
  s = Math.max(0, Math.floor(s))
  const m = Math.floor(s / 60)
  return `${m}:${String(s % 60).padStart(2, '0')}`
}

// ---------------------------------------------------------------- map view box
function unitsPerPixel () {
  const svg = $('map')
  return state.vb ? state.vb.w / Math.max(1, svg.clientWidth) : 1
}

function setViewBox (vb) {
  state.vb = vb
  $('map').setAttribute('viewBox', `${vb.x} ${vb.y} ${vb.w} ${vb.h}`)
  restyle()
}

function fit (snap) {
  const pts = []
  for (const a of snap.agents) if (a.pos) pts.push([a.pos[0], a.pos[2]])
  for (const p of snap.world.places || []) pts.push([p.x, p.z])
  for (const ar of snap.world.areas || []) {
    if (ar.shape === 'rect') { pts.push([ar.x0, ar.z0]); pts.push([ar.x1, ar.z1]) } else { pts.push([ar.x - ar.r, ar.z - ar.r]); pts.push([ar.x + ar.r, ar.z + ar.r]) }
  }
  if (!pts.length) pts.push([0, 0])
  let [x0, z0, x1, z1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [x, z] of pts) { x0 = Math.min(x0, x); z0 = Math.min(z0, z); x1 = Math.max(x1, x); z1 = Math.max(z1, z) }
  const svg = $('map')
  const aspect = Math.max(0.2, svg.clientWidth / Math.max(1, svg.clientHeight))
  let w = Math.max(24, x1 - x0) * 1.25
  let h = Math.max(24, z1 - z0) * 1.25
  if (w / h < aspect) w = h * aspect; else h = w / aspect
  setViewBox({ x: (x0 + x1) / 2 - w / 2, y: (z0 + z1) / 2 - h / 2, w, h })
}

function restyle () {
  const u = unitsPerPixel()
  for (const g of document.querySelectorAll('#layer-agents g.agent')) {
    g.querySelector('circle').setAttribute('r', 7 * u)
    const label = g.querySelector('text.label')
    label.setAttribute('font-size', 12 * u); label.setAttribute('y', -10 * u); label.setAttribute('stroke-width', 3 * u)
    const bubble = g.querySelector('text.bubble')
    bubble.setAttribute('font-size', 11 * u); bubble.setAttribute('y', 20 * u); bubble.setAttribute('stroke-width', 3 * u)
  }
  for (const t of document.querySelectorAll('#layer-world text, #layer-players text')) {
    t.setAttribute('font-size', 11 * u); t.setAttribute('stroke-width', 3 * u)
  }
  for (const c of document.querySelectorAll('#layer-world circle.place')) c.setAttribute('r', 3 * u)
  for (const c of document.querySelectorAll('#layer-world rect.chest')) { c.setAttribute('width', 6 * u); c.setAttribute('height', 6 * u) }
  for (const c of document.querySelectorAll('#layer-players rect')) { c.setAttribute('width', 10 * u); c.setAttribute('height', 10 * u); c.setAttribute('x', -5 * u); c.setAttribute('y', -5 * u) }
}

function installPanZoom () {
  const svg = $('map')
  let drag = null
  svg.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY, vb: { ...state.vb } } })
  window.addEventListener('mouseup', () => { drag = null })
  window.addEventListener('mousemove', (e) => {
    if (!drag || !state.vb) return
    const u = unitsPerPixel()
    state.userMoved = true
    setViewBox({ ...drag.vb, x: drag.vb.x - (e.clientX - drag.x) * u, y: drag.vb.y - (e.clientY - drag.y) * u })
  })
  svg.addEventListener('wheel', (e) => {
    if (!state.vb) return
    e.preventDefault()
    const k = e.deltaY > 0 ? 1.15 : 1 / 1.15
    const r = svg.getBoundingClientRect()
    const fx = (e.clientX - r.left) / r.width; const fy = (e.clientY - r.top) / r.height
    const vb = state.vb
    const w = vb.w * k; const h = vb.h * k
    state.userMoved = true
    setViewBox({ x: vb.x + (vb.w - w) * fx, y: vb.y + (vb.h - h) * fy, w, h })
  }, { passive: false })
  $('fit').addEventListener('click', () => { state.userMoved = false; if (state.last) fit(state.last) })
  window.addEventListener('resize', () => { if (state.last && !state.userMoved) fit(state.last); else restyle() })
}

// ---------------------------------------------------------------- rendering
function renderWorld (world) {
  const key = JSON.stringify(world)
  if (key === state.worldKey) return
  state.worldKey = key
  state.fitted = false // the map grew: fit it again (unless the user moved it)
  const layer = $('layer-world')
  layer.textContent = ''
  for (const a of world.areas || []) {
    const fill = AREA_COLOURS[a.kind] || '#ccc'
    const shape = a.shape === 'rect'
      ? el('rect', { class: 'area', x: a.x0, y: a.z0, width: a.x1 - a.x0, height: a.z1 - a.z0, fill, opacity: 0.85 }, layer)
      : el('circle', { class: 'area', cx: a.x, cy: a.z, r: a.r, fill, opacity: 0.75 }, layer)
    shape.dataset.kind = a.kind
  }
  for (const c of world.chests || []) el('rect', { class: 'chest', x: c[0], y: c[2], fill: '#7a4a1d' }, layer)
  for (const p of world.places || []) {
    el('circle', { class: 'place', cx: p.x, cy: p.z, fill: '#333' }, layer)
    const t = el('text', { x: p.x + 1, y: p.z - 1, fill: '#333' }, layer)
    t.textContent = p.name.replace(/_/g, ' ')
  }
}

function renderAgents (snap) {
  const layer = $('layer-agents')
  const seen = new Set()
  // agents on the same block (e.g. --world none) are fanned out around it on screen
  const groups = {}
  for (const a of snap.agents) if (a.pos) (groups[`${Math.round(a.pos[0])},${Math.round(a.pos[2])}`] ||= []).push(a.name)
  const u = unitsPerPixel()
  for (const a of snap.agents) {
    if (!a.pos) continue
    seen.add(a.name)
    let g = layer.querySelector(`g.agent[data-name="${CSS.escape(a.name)}"]`)
    if (!g) {
      g = el('g', { class: 'agent', 'data-name': a.name }, layer)
      el('circle', { fill: colour(a.name), stroke: '#fff', 'vector-effect': 'non-scaling-stroke', 'stroke-width': 1.5 }, g)
      const label = el('text', { class: 'label', 'text-anchor': 'middle', fill: '#111' }, g)
      label.textContent = a.name
      el('text', { class: 'bubble', 'text-anchor': 'middle', fill: '#0b3d91' }, g)
      el('title', {}, g)
      g.addEventListener('click', (e) => { e.stopPropagation(); select(a.name) })
      g.addEventListener('mousedown', (e) => e.stopPropagation())
    }
    const group = groups[`${Math.round(a.pos[0])},${Math.round(a.pos[2])}`]
    let [dx, dz] = [0, 0]
    if (group.length > 1) {
      const k = group.indexOf(a.name); const ang = 2 * Math.PI * k / group.length
      const rad = Math.max(10, 3 * group.length) * u
      dx = rad * Math.cos(ang); dz = rad * Math.sin(ang)
    }
    g.setAttribute('transform', `translate(${(a.pos[0] + dx).toFixed(2)},${(a.pos[2] + dz).toFixed(2)})`)
    g.dataset.x = a.pos[0]; g.dataset.z = a.pos[2]
    g.classList.toggle('sel', a.name === state.selected)
    g.classList.toggle('stale', !!a.stale || !a.online)
    g.querySelector('text.bubble').textContent = a.speech ? `“${a.speech.length > 60 ? a.speech.slice(0, 59) + '…' : a.speech}”` : ''
    g.querySelector('title').textContent = `${a.name}\ngoal: ${a.goal}\ndecision: ${a.intent}\nskill: ${a.skill}`
  }
  for (const g of [...layer.querySelectorAll('g.agent')]) if (!seen.has(g.dataset.name)) g.remove()
  const pl = $('layer-players')
  pl.textContent = ''
  for (const p of snap.players || []) {
    if (!p.pos) continue
    const g = el('g', { class: 'player', 'data-name': p.name, transform: `translate(${p.pos[0]},${p.pos[2]})` }, pl)
    el('rect', { fill: '#fff', stroke: '#111', 'vector-effect': 'non-scaling-stroke' }, g)
    const t = el('text', { 'text-anchor': 'middle', fill: '#111', y: -2 }, g)
    t.textContent = `${p.name} (player)`
  }
  restyle()
}

function renderList (snap) {
  const box = $('agent-list')
  const names = snap.agents.map((a) => `${a.name}:${a.stale || !a.online}`).join(',') + '|' + state.selected
  if (box.dataset.key === names) return
  box.dataset.key = names
  box.textContent = ''
  for (const a of [...snap.agents].sort((x, y) => x.name.localeCompare(y.name))) {
    const b = document.createElement('button')
    b.type = 'button'
    b.textContent = a.name
    b.dataset.name = a.name
    if (a.name === state.selected) b.classList.add('sel')
    if (a.stale || !a.online) b.classList.add('stale')
    b.addEventListener('click', () => select(a.name))
    box.appendChild(b)
  }
}

function renderFigures (snap) {
  const f = snap.figures || {}
  const show = [
    ['agents', f.agents], ['online', snap.agents.filter((a) => a.online && !a.stale).length],
    ['decisions/min', f.decisions_per_min], ['decisions', f.decisions], ['speech', f.speech],
    ['LLM calls', f.llm_calls], ['tokens', f.llm_tokens], ['calls/agent-h', f.calls_per_agent_hour], ['tokens/agent-h', f.tokens_per_agent_hour], ['$/agent-h', f.usd_per_agent_hour],
    ['lag p50 ms', f.lag_ms_p50], ['lag p95 ms', f.lag_ms_p95],
    ['coherence', f.coherence == null ? null : Number(f.coherence).toFixed(2)],
    ['unresponsive', f.unresponsive], ['errors', f.errors], ['elapsed', f.elapsed_s == null ? null : fmtDur(f.elapsed_s)]
  ]
  const perModule = Object.entries(f.llm_per_agent_hour || {}).map(([m, r]) => `<span data-k="llm ${esc(m)}">${esc(m)} <b>${esc(r.calls)}</b> calls <b>${esc(r.tokens)}</b> tok <b>$${esc(r.usd)}</b></span>`).join('')
  $('figures').innerHTML = show.filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => `<span data-k="${esc(k)}">${esc(k)} <b>${esc(v)}</b></span>`).join('') +
    (perModule ? `<div class="per-module" data-k="llm per agent-hour">LLM per agent-hour: ${perModule}</div>` : '')
  $('status').textContent = snap.status || ''
}

function renderChat (chat) {
  const key = chat.length ? `${chat.length}:${chat[chat.length - 1].t}:${chat[chat.length - 1].heard_by.length}` : ''
  if (key === state.chatKey) return
  state.chatKey = key
  const box = $('chat')
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4
  box.innerHTML = chat.map((c) => `<div class="line"><span class="muted">${esc(fmtTime(c.t))}</span> <span class="who" style="color:${colour(c.sender)}">${esc(c.sender)}</span>${c.to ? ` → ${esc(c.to)}` : ''}: ${esc(c.text)}${c.heard_by.length ? ` <span class="heard">(heard by ${esc(c.heard_by.join(', '))})</span>` : ''}</div>`).join('')
  if (atBottom) box.scrollTop = box.scrollHeight
}

function renderGraph (snap) {
  const svg = $('graph')
  const names = snap.agents.map((a) => a.name).sort()
  const key = JSON.stringify([names, snap.edges])
  if (svg.dataset.key === key) return
  svg.dataset.key = key
  svg.textContent = ''
  const n = names.length
  const pos = {}
  names.forEach((name, i) => { const a = 2 * Math.PI * i / Math.max(1, n) - Math.PI / 2; pos[name] = [90 * Math.cos(a), 90 * Math.sin(a)] })
  for (const e of snap.edges || []) {
    const a = pos[e.from]; const b = pos[e.to]
    if (!a || !b) continue
    const s = Math.max(0, Math.min(10, e.sentiment))
    const hue = Math.round(12 * s)
    el('line', { x1: a[0], y1: a[1], x2: b[0] * 0.94 + a[0] * 0.06, y2: b[1] * 0.94 + a[1] * 0.06, stroke: `hsl(${hue} 70% 42%)`, 'stroke-width': 0.6 + Math.abs(s - 5) / 2.5, opacity: 0.75 }, svg)
  }
  const small = n > 20
  for (const name of names) {
    const [x, y] = pos[name]
    const c = el('circle', { cx: x, cy: y, r: small ? 2.5 : 4, fill: colour(name), class: 'node', 'data-name': name }, svg)
    c.addEventListener('click', () => select(name))
    if (!small || name === state.selected) {
      const t = el('text', { x: x * 1.1, y: y * 1.1 + 2, 'text-anchor': 'middle', 'font-size': 7 }, svg)
      t.textContent = name
    }
  }
}

function li (items, f) {
  return items && items.length ? `<ul>${items.map((x) => `<li>${f(x)}</li>`).join('')}</ul>` : '<span class="muted">none</span>'
}

function decisionHtml (d, skill) {
  if (!d || !Object.keys(d).length) return '<span class="muted">no decision yet</span>'
  const rows = []
  if (d.intent) rows.push(`<div class="intent"><b>${esc(d.intent)}</b></div>`)
  const kind = d.kind ? `[${esc(d.kind)}] ` : ''
  if (skill || kind) rows.push(`<div>${kind}${esc(skill)}</div>`)
  const say = d.say && typeof d.say === 'object' ? `${d.say.kind || ''}${d.say.to ? ' → ' + d.say.to : ''}${d.say.text ? ': ' + d.say.text : ''}` : (d.speech_intent || '')
  if (say) rows.push(`<div>say: ${esc(say)}</div>`)
  if (d.reason) rows.push(`<div class="muted">why: ${esc(d.reason)}</div>`)
  if (d.brain) rows.push(`<div class="muted">brain: ${esc(d.brain)}</div>`)
  const view = d.view || d.bottleneck || d.view_text
  if (view) rows.push(`<details><summary>bottleneck view it decided from</summary><pre>${esc(typeof view === 'string' ? view : JSON.stringify(view, null, 1))}</pre></details>`)
  return `<div class="decision">${rows.join('')}</div>`
}

function renderPanel (d) {
  const box = $('panel')
  if (!state.selected) return
  if (!d) { box.innerHTML = `<h2>${esc(state.selected)}</h2><p class="muted">not seen at this time</p>`; return }
  const key = JSON.stringify(d)
  if (box.dataset.key === key) return
  box.dataset.key = key
  const inv = Object.entries(d.inventory || {})
  const pos = d.pos ? d.pos.map((v) => Math.round(v)).join(', ') : 'unknown'
  const plan = d.plan && d.plan.length ? `${d.plan_step + 1}/${d.plan.length}: ${d.plan_text}` : ''
  const v3 = state.view3d[d.name]
  const view3d = state.mode !== 'live' ? '' : `<div class="view3d-row"><button type="button" class="view3d" data-agent="${esc(d.name)}">3D view</button>
    ${v3 && v3.url ? `<a class="view3d-link" href="${esc(v3.url)}" target="_blank" rel="noopener">${esc(v3.url)}</a>` : ''}
    ${v3 && v3.note ? `<span class="muted view3d-note">${esc(v3.note)}</span>` : ''}</div>`
  box.innerHTML = `<h2 style="color:${colour(d.name)}">${esc(d.name)}</h2>${view3d}
  <dl>
    <dt>position</dt><dd>${esc(pos)}${d.health != null ? ` · health ${esc(d.health)} · food ${esc(d.food)}` : ''}${d.online ? '' : ' · <b>offline</b>'}</dd>
    <dt>goal</dt><dd class="goal">${esc(d.goal) || '<span class="muted">none</span>'}</dd>
    <dt>plan step</dt><dd class="plan">${esc(plan) || '<span class="muted">none</span>'}</dd>
    <dt>decision</dt><dd class="decision-box">${decisionHtml(d.decision, d.decision_skill)}<span class="muted small">${d.decisions} decisions${d.decision_t ? ', last at ' + esc(fmtTime(d.decision_t)) : ''}</span></dd>
    <dt>skill</dt><dd>${esc(d.skill)} ${d.skill_state ? `<span class="muted">(${esc(d.skill_state)})</span>` : ''}</dd>
    <dt>last speech</dt><dd class="speech">${d.speech && d.speech.text ? `“${esc(d.speech.text)}”${d.speech.to ? ' → ' + esc(d.speech.to) : ''} <span class="muted">${esc(fmtTime(d.speech.t))}</span>` : '<span class="muted">silent</span>'}</dd>
    <dt>inventory</dt><dd>${inv.length ? inv.map(([k, v]) => `${esc(k)} ×${esc(v)}`).join(', ') : '<span class="muted">empty</span>'}</dd>
    <dt>discrepancies</dt><dd>${li(d.discrepancies, (x) => `${esc(x.skill)}: ${esc(x.note)}`)}</dd>
    <dt>memories</dt><dd>${li(d.memories, (x) => `<span class="muted">${esc(x.kind)}</span> ${esc(x.text)}`)}</dd>
    <dt>reflections</dt><dd>${li(d.reflections, esc)}</dd>
    <dt>sentiments</dt><dd>${li(Object.entries(d.sentiments || {}), ([k, v]) => `${esc(k)}: ${esc(Number(v).toFixed(1))}`)}</dd>
  </dl>`
}

function render (snap) {
  state.last = snap
  $('run').textContent = snap.run_id || state.runId
  renderWorld(snap.world || {})
  if (!state.vb || (!state.userMoved && !state.fitted && snap.agents.some((a) => a.pos))) {
    fit(snap)
    state.fitted = snap.agents.some((a) => a.pos)
  }
  renderAgents(snap)
  renderList(snap)
  renderFigures(snap)
  renderChat(snap.chat || [])
  renderGraph(snap)
  renderPanel(snap.detail)
  if (state.mode === 'replay') $('clock').textContent = `${fmtDur(snap.t - state.t0)} / ${fmtDur(state.t1 - state.t0)}`
}

// ---------------------------------------------------------------- data
function select (name) {
  state.selected = name
  $('panel').dataset.key = ''
  const url = new URL(window.location)
  url.searchParams.set('agent', name)
  window.history.replaceState(null, '', url)
  if (state.mode === 'live') openStream(); else fetchAt(state.t)
}

function openStream () {
  if (state.stream) state.stream.close()
  const q = state.selected ? `?agent=${encodeURIComponent(state.selected)}` : ''
  state.stream = new EventSource(`/api/stream${q}`)
  state.stream.onmessage = (e) => render(JSON.parse(e.data))
  state.stream.onerror = () => { $('status').textContent = 'disconnected (retrying)' }
}

async function fetchAt (t) {
  if (state.inFlight) { state.pending = t; return }
  state.inFlight = true
  try {
    const q = new URLSearchParams({ t: String(t) })
    if (state.selected) q.set('agent', state.selected)
    const r = await fetch(`/api/scene?${q}`)
    if (r.ok) render(await r.json())
  } finally {
    state.inFlight = false
    if (state.pending !== undefined) { const p = state.pending; state.pending = undefined; fetchAt(p) }
  }
}

function setupReplay (info) {
  state.t0 = info.t0; state.t1 = info.t1; state.t = info.t0
  $('replay-controls').hidden = false
  const slider = $('slider')
  const toT = () => state.t0 + (state.t1 - state.t0) * Number(slider.value) / Number(slider.max)
  slider.addEventListener('input', () => { state.t = toT(); fetchAt(state.t) })
  $('speed').addEventListener('change', (e) => { state.speed = Number(e.target.value) })
  state.speed = Number($('speed').value)
  $('play').addEventListener('click', () => {
    if (!state.playing && state.t >= state.t1) state.t = state.t0
    state.playing = !state.playing
    $('play').textContent = state.playing ? '❚❚' : '▶'
  })
  let before = performance.now()
  setInterval(() => {
    const now = performance.now()
    const dt = (now - before) / 1000
    before = now
    if (!state.playing) return
    state.t = Math.min(state.t1, state.t + dt * state.speed)
    slider.value = String(Math.round(Number(slider.max) * (state.t - state.t0) / Math.max(1e-9, state.t1 - state.t0)))
    fetchAt(state.t)
    if (state.t >= state.t1) { state.playing = false; $('play').textContent = '▶' }
  }, 200)
  fetchAt(state.t)
}

// A 3D view from the agent's eyes: the body's process starts prismarine-viewer on loopback.
async function openView3d (name) {
  state.view3d[name] = { note: 'starting…' }
  $('panel').dataset.key = ''
  if (state.last) renderPanel(state.last.detail)
  let answer
  try {
    const r = await fetch(`/api/view3d?agent=${encodeURIComponent(name)}`, { method: 'POST' })
    answer = await r.json()
  } catch (e) {
    answer = { error: String(e) }
  }
  state.view3d[name] = answer.url ? { url: answer.url } : { note: answer.error || 'no answer' }
  $('panel').dataset.key = ''
  if (state.last) renderPanel(state.last.detail)
  if (answer.url) window.open(answer.url, '_blank', 'noopener')
}

async function main () {
  installPanZoom()
  $('panel').addEventListener('click', (e) => {
    const b = e.target.closest('button.view3d')
    if (b) openView3d(b.dataset.agent)
  })
  state.selected = new URL(window.location).searchParams.get('agent')
  const info = await (await fetch('/api/info')).json()
  state.mode = info.mode
  state.runId = info.run_id
  $('mode').textContent = info.mode
  if (info.mode === 'replay') setupReplay(info); else openStream()
}

main()
