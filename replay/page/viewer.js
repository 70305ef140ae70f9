// The libgjk replay viewer: reads the page's JSON (#replay-data), draws the robot's collision
// bodies, the obstacles and the worst pair's closest points with three.js, and drives them from
// the timeline. window.replay exposes a small API for the browser tests and for scripting.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const data = JSON.parse(document.getElementById('replay-data').textContent);

/** Decodes a base64 little-endian typed array. */
function decode(b64, Type) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

const margin = data.margin === null ? -Infinity : data.margin;
const realTime = data.time_label !== 'state';
const runs = data.runs.map((r) => ({
  name: r.name,
  frames: r.frames,
  times: decode(r.times, Float64Array),
  poses: decode(r.poses, Float32Array),
  linkClearance: decode(r.link_clearance, Float32Array),
  clearance: decode(r.clearance, Float64Array),
  worst: decode(r.worst, Int32Array),
  witness: decode(r.witness, Float32Array),
}));

// Colour scale: red in collision, orange below the margin, then yellow -> green -> blue up to
// the largest finite link clearance of the replay.
let scaleMax = 0;
for (const run of runs) {
  for (const d of run.linkClearance) if (Number.isFinite(d) && d > scaleMax) scaleMax = d;
}
const scaleMin = Math.max(0, margin);
if (!(scaleMax > scaleMin)) scaleMax = scaleMin + 0.1;
const COLLISION = new THREE.Color(0.85, 0.02, 0.02);
const BELOW = new THREE.Color(1.0, 0.5, 0.0);
const UNMEASURED = new THREE.Color(0.6, 0.6, 0.6);
const STOPS = [new THREE.Color(1.0, 0.85, 0.1), new THREE.Color(0.1, 0.7, 0.25),
  new THREE.Color(0.15, 0.35, 0.9)];

/** The colour of a clearance (metres; +inf: no pair measured). */
function clearanceColor(d, out = new THREE.Color()) {
  if (!Number.isFinite(d)) return out.copy(UNMEASURED);
  if (d < 0) return out.copy(COLLISION);
  if (d < margin) return out.copy(BELOW);
  const t = Math.min(1, Math.max(0, (d - scaleMin) / (scaleMax - scaleMin))) * 2;
  const i = Math.min(1, Math.floor(t));
  return out.copy(STOPS[i]).lerp(STOPS[i + 1], t - i);
}

// ------------------------------------------------------------------------------------------
// Scene

const view = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f5f7);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
camera.up.set(0, 0, 1); // robots are z-up
scene.add(new THREE.HemisphereLight(0xffffff, 0x8888aa, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(2, -3, 5);
scene.add(sun);

function geometryOf(body) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(decode(body.vertices, Float32Array), 3));
  g.setIndex(new THREE.BufferAttribute(decode(body.triangles, Uint32Array), 1));
  g.computeBoundingBox();
  g.computeBoundingSphere();
  return g;
}

const bodies = data.bodies.map((b) => {
  const material = new THREE.MeshStandardMaterial({ flatShading: true, roughness: 0.8,
    side: THREE.DoubleSide });
  const mesh = new THREE.Mesh(geometryOf(b), material);
  mesh.matrixAutoUpdate = false;
  scene.add(mesh);
  return { name: b.name, link: b.link, mesh };
});

const obstacleMaterial = new THREE.MeshStandardMaterial({ color: 0x9aa0a8, flatShading: true,
  roughness: 0.9, side: THREE.DoubleSide, transparent: true, opacity: 0.35, depthWrite: false });
const obstacles = data.obstacles.map((o) => {
  const mesh = new THREE.Mesh(geometryOf(o), obstacleMaterial);
  mesh.renderOrder = 1; // after the robot, so the robot shows through
  scene.add(mesh);
  return { name: o.name, kind: o.kind, mesh };
});

// Ghosts: the robot at earlier instants, faint and uncoloured. A link that has not moved since
// a ghost's instant lies exactly on its ghost; the polygon offset pushes ghosts back in depth so
// the body wins those ties everywhere (otherwise depth rounding stripes the body with ghost).
const GHOSTS = 8;
const ghostMaterial = new THREE.MeshStandardMaterial({ color: 0x5577aa, transparent: true,
  opacity: 0.18, depthWrite: false, flatShading: true, polygonOffset: true,
  polygonOffsetFactor: 1, polygonOffsetUnits: 4 });
const ghosts = [];
for (let k = 0; k < GHOSTS; k++) {
  const group = bodies.map((b) => {
    const m = new THREE.Mesh(b.mesh.geometry, ghostMaterial);
    m.matrixAutoUpdate = false;
    m.visible = false;
    scene.add(m);
    return m;
  });
  ghosts.push(group);
}

// The worst pair: segment, end points and a label.
const pairGeometry = new THREE.BufferGeometry();
pairGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
const pairLine = new THREE.Line(pairGeometry, new THREE.LineBasicMaterial({ color: 0x111111,
  depthTest: false }));
pairLine.renderOrder = 2;
scene.add(pairLine);
const dotGeometry = new THREE.SphereGeometry(1, 12, 8);
const dots = [0, 1].map(() => {
  const m = new THREE.Mesh(dotGeometry, new THREE.MeshBasicMaterial({ color: 0x111111,
    depthTest: false }));
  m.renderOrder = 2;
  scene.add(m);
  return m;
});
const pairLabel = document.getElementById('pair-label');

// Camera on the whole scene.
const sceneBox = new THREE.Box3();
for (const o of obstacles) sceneBox.union(o.mesh.geometry.boundingBox);
const controls = new OrbitControls(camera, renderer.domElement);
let dotRadius = 0.005;
let fitted = false;

/** The obstacles and everywhere the robot goes in any run (about 200 instants per run). */
function sceneExtent() {
  const box = sceneBox.clone();
  const m = new THREE.Matrix4();
  const p = new THREE.Vector3();
  const q = new THREE.Quaternion();
  const n = bodies.length;
  for (const r of runs) {
    const step = Math.max(1, Math.floor(r.frames / 200));
    for (let f = 0; f < r.frames; f += step) {
      for (let b = 0; b < n; b++) {
        const o = (f * n + b) * 7;
        p.set(r.poses[o], r.poses[o + 1], r.poses[o + 2]);
        q.set(r.poses[o + 3], r.poses[o + 4], r.poses[o + 5], r.poses[o + 6]);
        m.compose(p, q, ONE);
        box.union(bodies[b].mesh.geometry.boundingBox.clone().applyMatrix4(m));
      }
    }
  }
  return box;
}

function fitCamera() {
  const box = sceneExtent();
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.05);
  dotRadius = radius * 0.008;
  // The narrower of the vertical and horizontal fields of view (the view may be portrait).
  const half = THREE.MathUtils.degToRad(camera.fov / 2);
  const distance = radius / Math.sin(Math.min(half, Math.atan(Math.tan(half) * camera.aspect)));
  camera.position.copy(centre).add(new THREE.Vector3(1.0, -1.3, 0.8).normalize()
    .multiplyScalar(distance * 0.95));
  camera.near = distance / 100;
  camera.far = distance * 10;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
}

// ------------------------------------------------------------------------------------------
// State

let runIndex = 0;
let frame = 0;
let playing = false;
let playTime = 0;
const slider = document.getElementById('slider');
const speed = document.getElementById('speed');
const playButton = document.getElementById('play');
const ghostToggle = document.getElementById('ghosts');
const obstacleMode = document.getElementById('obstacles');
const clearanceText = document.getElementById('clearance');
const pairText = document.getElementById('pair');
const timeText = document.getElementById('time');
const tmpColor = new THREE.Color();
const tmpQ = new THREE.Quaternion();
const tmpP = new THREE.Vector3();
const ONE = new THREE.Vector3(1, 1, 1);

function run() { return runs[runIndex]; }

function formatDistance(d) { return Number.isFinite(d) ? `${d.toFixed(4)} m` : 'none measured'; }

function formatTime(r, f) {
  if (!realTime) return `state ${r.times[f]} (frame ${f + 1} of ${r.frames})`;
  const unit = /\(([^)]*)\)$/.exec(data.time_label);
  const name = data.time_label.replace(/ *\([^)]*\)$/, '');
  return `${name} = ${r.times[f].toFixed(3)}${unit ? ` ${unit[1]}` : ''} (frame ${f + 1} of ${r.frames})`;
}

function placeBodies(meshes, r, f) {
  const n = bodies.length;
  for (let b = 0; b < n; b++) {
    const o = (f * n + b) * 7;
    tmpP.set(r.poses[o], r.poses[o + 1], r.poses[o + 2]);
    tmpQ.set(r.poses[o + 3], r.poses[o + 4], r.poses[o + 5], r.poses[o + 6]);
    meshes[b].matrix.compose(tmpP, tmpQ, ONE);
    meshes[b].matrixWorldNeedsUpdate = true;
  }
}

/** Shows frame f of the current run. */
function setFrame(f) {
  const r = run();
  frame = Math.max(0, Math.min(r.frames - 1, Math.round(f)));
  slider.value = String(frame);
  placeBodies(bodies.map((b) => b.mesh), r, frame);
  const links = data.links.length;
  for (const b of bodies) {
    clearanceColor(r.linkClearance[frame * links + b.link], tmpColor);
    b.mesh.material.color.copy(tmpColor);
  }
  // Ghosts at evenly spaced earlier frames.
  for (let k = 0; k < GHOSTS; k++) {
    const g = Math.floor((k * frame) / GHOSTS);
    const show = ghostToggle.checked && g < frame;
    if (show) placeBodies(ghosts[k], r, g);
    for (const m of ghosts[k]) m.visible = show;
  }
  const d = r.clearance[frame];
  const wb = r.worst[2 * frame];
  const wo = r.worst[2 * frame + 1];
  clearanceText.textContent = formatDistance(d);
  clearanceText.dataset.distance = String(d);
  clearanceText.className = d < 0 ? 'collision' : d < margin ? 'below' : '';
  timeText.textContent = formatTime(r, frame);
  const hasPair = wb >= 0 && wo >= 0;
  pairText.textContent = hasPair ? `worst pair: ${bodies[wb].name} / ${obstacles[wo].name}` : '';
  pairLine.visible = hasPair;
  for (const m of dots) m.visible = hasPair;
  pairLabel.hidden = !hasPair;
  if (hasPair) {
    const w = r.witness.subarray(frame * 6, frame * 6 + 6);
    pairGeometry.attributes.position.array.set(w);
    pairGeometry.attributes.position.needsUpdate = true;
    pairGeometry.computeBoundingSphere();
    dots[0].position.set(w[0], w[1], w[2]);
    dots[1].position.set(w[3], w[4], w[5]);
    for (const m of dots) m.scale.setScalar(dotRadius);
    pairLabel.textContent = formatDistance(d);
  }
  drawPlot();
  render();
}

// ------------------------------------------------------------------------------------------
// Timeline marks, plot and legend (2D canvases)

function sizeCanvas(c) {
  const w = Math.max(1, Math.round(c.clientWidth * window.devicePixelRatio));
  const h = Math.max(1, Math.round(c.clientHeight * window.devicePixelRatio));
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  return c.getContext('2d');
}

function drawMarks() {
  const c = document.getElementById('marks');
  const ctx = sizeCanvas(c);
  ctx.clearRect(0, 0, c.width, c.height);
  const r = run();
  const x = (f) => (r.frames > 1 ? (f / (r.frames - 1)) * (c.width - 1) : 0);
  for (let f = 0; f < r.frames; f++) {
    const d = r.clearance[f];
    if (!(d < margin || d < 0)) continue;
    ctx.fillStyle = d < 0 ? '#d00' : '#f80';
    ctx.fillRect(Math.floor(x(f)), 0, Math.max(1, Math.ceil(c.width / r.frames)), c.height);
  }
}

function drawPlot() {
  const c = document.getElementById('plot');
  const ctx = sizeCanvas(c);
  const r = run();
  const w = c.width;
  const h = c.height;
  ctx.clearRect(0, 0, w, h);
  let lo = 0;
  let hi = Math.max(0, margin);
  for (const d of r.clearance) {
    if (!Number.isFinite(d)) continue;
    lo = Math.min(lo, d);
    hi = Math.max(hi, d);
  }
  if (hi - lo < 1e-9) hi = lo + 1e-3;
  const pad = 4 * window.devicePixelRatio;
  const t0 = r.times[0];
  const t1 = r.times[r.frames - 1];
  const x = (t) => pad + ((t1 > t0 ? (t - t0) / (t1 - t0) : 0) * (w - 2 * pad));
  const y = (d) => h - pad - ((d - lo) / (hi - lo)) * (h - 2 * pad);
  ctx.lineWidth = window.devicePixelRatio;
  ctx.strokeStyle = '#888';
  ctx.beginPath(); ctx.moveTo(0, y(0)); ctx.lineTo(w, y(0)); ctx.stroke();
  if (margin > 0) {
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = '#f80';
    ctx.beginPath(); ctx.moveTo(0, y(margin)); ctx.lineTo(w, y(margin)); ctx.stroke();
    ctx.setLineDash([]);
  }
  ctx.strokeStyle = '#1a5fb4';
  ctx.beginPath();
  let pen = false;
  for (let f = 0; f < r.frames; f++) {
    const d = r.clearance[f];
    if (!Number.isFinite(d)) { pen = false; continue; }
    if (pen) ctx.lineTo(x(r.times[f]), y(d)); else ctx.moveTo(x(r.times[f]), y(d));
    pen = true;
  }
  ctx.stroke();
  ctx.strokeStyle = '#000';
  ctx.beginPath();
  ctx.moveTo(x(r.times[frame]), 0);
  ctx.lineTo(x(r.times[frame]), h);
  ctx.stroke();
  ctx.fillStyle = '#444';
  ctx.font = `${11 * window.devicePixelRatio}px system-ui, sans-serif`;
  ctx.fillText(`${hi.toFixed(3)} m`, pad, pad + 10 * window.devicePixelRatio);
  ctx.fillText(`${lo.toFixed(3)} m`, pad, h - pad);
}

function drawLegend() {
  const c = document.getElementById('legend');
  const ctx = sizeCanvas(c);
  const w = c.width;
  const px = window.devicePixelRatio;
  ctx.clearRect(0, 0, w, c.height);
  const barH = 14 * px;
  const boxW = 0.18 * w;
  ctx.fillStyle = `#${COLLISION.getHexString()}`;
  ctx.fillRect(0, 0, boxW, barH);
  let x0 = boxW;
  if (margin > 0) {
    ctx.fillStyle = `#${BELOW.getHexString()}`;
    ctx.fillRect(boxW, 0, boxW, barH);
    x0 = 2 * boxW;
  }
  for (let x = x0; x < w; x++) {
    const d = scaleMin + ((x - x0) / (w - x0)) * (scaleMax - scaleMin);
    ctx.fillStyle = `#${clearanceColor(Math.max(d, scaleMin + 1e-12), tmpColor).getHexString()}`;
    ctx.fillRect(x, 0, 1, barH);
  }
  ctx.fillStyle = '#333';
  ctx.font = `${11 * px}px system-ui, sans-serif`;
  const text = barH + 13 * px;
  ctx.fillText('< 0', 2 * px, text);
  if (margin > 0) ctx.fillText(`< ${margin.toFixed(3)}`, boxW + 2 * px, text);
  ctx.fillText(`${scaleMin.toFixed(3)}`, x0 + 2 * px, text);
  const right = `${scaleMax.toFixed(3)} m`;
  ctx.fillText(right, w - ctx.measureText(right).width - 2 * px, text);
}

// ------------------------------------------------------------------------------------------
// Rendering and playback

function resize() {
  const w = Math.max(1, view.clientWidth);
  const h = Math.max(1, view.clientHeight);
  renderer.setSize(w, h);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  drawMarks();
  drawLegend();
  drawPlot();
}

const tmpV = new THREE.Vector3();
function render() {
  renderer.render(scene, camera);
  if (!pairLabel.hidden) {
    const w = run().witness;
    tmpV.set((w[frame * 6] + w[frame * 6 + 3]) / 2, (w[frame * 6 + 1] + w[frame * 6 + 4]) / 2,
      (w[frame * 6 + 2] + w[frame * 6 + 5]) / 2).project(camera);
    pairLabel.style.left = `${((tmpV.x + 1) / 2) * view.clientWidth}px`;
    pairLabel.style.top = `${((1 - tmpV.y) / 2) * view.clientHeight}px`;
  }
}

let last = null;
function tick(now) {
  if (playing) {
    const r = run();
    const dt = last === null ? 0 : (now - last) / 1000;
    playTime += dt * Number(speed.value) * (realTime ? 1 : 60);
    if (playTime >= r.times[r.frames - 1]) {
      playTime = r.times[r.frames - 1];
      playing = false;
      playButton.textContent = 'Play';
    }
    // Last frame at or before playTime (times increase along a path).
    let lo = 0;
    let hi = r.frames - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (r.times[mid] <= playTime) lo = mid; else hi = mid - 1;
    }
    if (lo !== frame) setFrame(lo);
  }
  last = now;
  requestAnimationFrame(tick);
}

function selectRun(i) {
  runIndex = Math.max(0, Math.min(runs.length - 1, i));
  document.getElementById('run').value = String(runIndex);
  slider.max = String(run().frames - 1);
  drawMarks();
  setFrame(Math.min(frame, run().frames - 1));
}

// ------------------------------------------------------------------------------------------
// Controls

document.getElementById('title').textContent = data.title;
document.title = `${data.title} - libgjk replay`;
const runSelect = document.getElementById('run');
runs.forEach((r, i) => {
  const o = document.createElement('option');
  o.value = String(i);
  o.textContent = `${r.name} (${r.frames} frames)`;
  runSelect.appendChild(o);
});
runSelect.addEventListener('change', () => selectRun(Number(runSelect.value)));
slider.addEventListener('input', () => {
  setFrame(Number(slider.value));
  playTime = run().times[frame];
});
playButton.addEventListener('click', () => {
  playing = !playing;
  if (playing && frame >= run().frames - 1) setFrame(0);
  playTime = run().times[frame];
  playButton.textContent = playing ? 'Pause' : 'Play';
});
ghostToggle.addEventListener('change', () => setFrame(frame));
function applyObstacleMode() {
  const mode = obstacleMode.value;
  obstacleMaterial.transparent = mode === 'transparent';
  obstacleMaterial.opacity = mode === 'transparent' ? 0.35 : 1.0;
  obstacleMaterial.depthWrite = mode !== 'transparent';
  obstacleMaterial.needsUpdate = true;
  for (const o of obstacles) o.mesh.visible = mode !== 'hidden';
  render();
}
obstacleMode.addEventListener('change', applyObstacleMode);
controls.addEventListener('change', render);
window.addEventListener('resize', resize);

if (runs.length === 0 || runs[0].frames === 0) {
  timeText.textContent = 'no frames to show';
} else {
  selectRun(0);
  resize(); // first: the camera fit needs the view's aspect
  if (!fitted) { fitCamera(); fitted = true; }
  applyObstacleMode();
  setFrame(0);
  requestAnimationFrame(tick);
}

/** Screen position (CSS pixels, relative to the page) of a world point. */
function toPage(v) {
  const p = v.clone().project(camera);
  const rect = renderer.domElement.getBoundingClientRect();
  return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
}

// For tests and scripting: read the state, move the timeline, find a link on the screen.
window.replay = {
  links: data.links.slice(),
  bodies: bodies.map((b) => ({ name: b.name, link: b.link })),
  obstacles: obstacles.map((o) => o.name),
  runs: runs.map((r) => ({ name: r.name, frames: r.frames })),
  margin,
  get run() { return runIndex; },
  get frame() { return frame; },
  selectRun,
  setFrame,
  setObstacles(mode) { obstacleMode.value = mode; applyObstacleMode(); },
  setGhosts(on) { ghostToggle.checked = on; setFrame(frame); },
  time(f = frame) { return run().times[f]; },
  clearance(f = frame) { return run().clearance[f]; },
  linkClearance(link, f = frame) { return run().linkClearance[f * data.links.length + link]; },
  /** The colour a link is drawn in now, as [r, g, b] in 0..1 (linear). */
  linkColor(link) {
    const b = bodies.find((x) => x.link === link);
    return b ? b.mesh.material.color.toArray() : null;
  },
  /** Page coordinates of the centre of a link's largest body (its bounding-box centre). */
  projectLink(link) {
    let best = null;
    let size = -1;
    for (const b of bodies) {
      if (b.link !== link) continue;
      const s = b.mesh.geometry.boundingSphere.radius;
      if (s > size) { size = s; best = b; }
    }
    if (!best) return null;
    best.mesh.updateMatrixWorld();
    const centre = best.mesh.geometry.boundingBox.getCenter(new THREE.Vector3())
      .applyMatrix4(best.mesh.matrixWorld);
    return toPage(centre);
  },
  pairLabel() { return pairLabel.hidden ? null : pairLabel.textContent; },
  render,
  ready: true,
};
