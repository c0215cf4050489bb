// ONNX Runtime (the npm package onnxruntime-node, CPU execution provider) timed on one model that
// compare_onnxruntime.py exported, for machines where ONNX Runtime's Python package cannot be installed.
//
//   node tools/bench/ort_time.js JOB.json
//
// JOB.json (written by compare_onnxruntime.py):
//   ort_node      folder holding node_modules/onnxruntime-node (npm install --ignore-scripts onnxruntime-node)
//   model         the .onnx file: inputs src [1, window, 1] and tgt [1, rows, 1], output [1, rows, 1]
//   src, tgt      {"file": raw little-endian float32, "shape": [...]}
//   expect        {"forward": PyTorch's output for (src, tgt), "forecast": PyTorch's forecast}: float32 files
//   bounds        {"forward": b, "forecast": b}: the largest |ORT - PyTorch| accepted
//   horizon, threads, runs, forecast_runs
//
// Checks ORT's forward output and forecast against PyTorch's first and times nothing when either is off
// (exit 1). Then one warm-up and `runs` timed forward passes, one warm-up and `forecast_runs` timed forecasts;
// prints one JSON line: the medians in ms, the differences from PyTorch, ORT's version.
// The forecast feeds src and the decoder input [src's last value, y1, ..., y(k-1)] at step k and keeps the
// output's last row: an exported graph has no key/value cache, so each step reruns the whole model.
'use strict';

const fs = require('fs');
const path = require('path');

function fail(message) {
  console.error(`ort_time: ${message}`);
  process.exit(1);
}

function readFloats(file, count) {
  const bytes = fs.readFileSync(file);
  if (bytes.length !== 4 * count) fail(`${file}: ${bytes.length} bytes, expected ${count} float32 values`);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = bytes.readFloatLE(4 * i);
  return values;
}

function maxAbsDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return Number.isNaN(m) || a.length !== b.length ? Infinity : m;
}

function median(values) {
  const s = [...values].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function medianMs(fn, runs) {
  await fn();  // warm-up
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ms);
}

async function forecast(ort, session, src, start, horizon) {
  const dec = new Float32Array(horizon);
  dec[0] = start;
  const out = new Float32Array(horizon);
  for (let k = 1; k <= horizon; k++) {
    const tgt = new ort.Tensor('float32', dec.slice(0, k), [1, k, 1]);
    const result = await session.run({ src, tgt });
    out[k - 1] = result[session.outputNames[0]].data[k - 1];
    if (k < horizon) dec[k] = out[k - 1];
  }
  return out;
}

async function main() {
  if (process.argv.length !== 3) fail('usage: node tools/bench/ort_time.js JOB.json');
  const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const ort = require(job.ort_node ? path.resolve(job.ort_node, 'node_modules', 'onnxruntime-node')
    : 'onnxruntime-node');
  const session = await ort.InferenceSession.create(job.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: job.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const count = (shape) => shape.reduce((a, b) => a * b, 1);
  const srcData = readFloats(job.src.file, count(job.src.shape));
  const src = new ort.Tensor('float32', srcData, job.src.shape);
  const tgt = new ort.Tensor('float32', readFloats(job.tgt.file, count(job.tgt.shape)), job.tgt.shape);
  const start = srcData[srcData.length - 1];

  // ONNX Runtime must compute the model it is timed on.
  const out = (await session.run({ src, tgt }))[session.outputNames[0]].data;
  const diff = {
    forward: maxAbsDiff(out, readFloats(job.expect.forward, out.length)),
    forecast: maxAbsDiff(await forecast(ort, session, src, start, job.horizon),
      readFloats(job.expect.forecast, job.horizon)),
  };
  for (const what of ['forward', 'forecast']) {
    if (!(diff[what] <= job.bounds[what])) {
      fail(`${job.model}: ${what} differs from PyTorch's by up to ${diff[what]} (bound ${job.bounds[what]})`);
    }
  }
  const forwardMs = await medianMs(() => session.run({ src, tgt }), job.runs);
  const forecastMs = await medianMs(() => forecast(ort, session, src, start, job.horizon), job.forecast_runs);
  console.log(JSON.stringify({
    model: job.model, threads: job.threads, forward_ms: forwardMs, forecast_ms: forecastMs,
    max_abs_diff: diff, ort_version: ort.env.versions.node || ort.env.versions.common, node: process.version,
  }));
}

main().catch((e) => fail(e.stack || String(e)));
