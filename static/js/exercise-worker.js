// The exercise worker: a module Web Worker that boots Pyodide (CPython for WebAssembly) once and
// runs the exercise harness (static/exercises/harness.py) on the code the page sends. Its script
// response carries a CSP with 'wasm-unsafe-eval' (a dedicated worker takes its policy from its own
// script's response); the page stops a run that outlives its time limit by terminating this worker.
//
// Messages in:  {type: "boot", pyodide, index, harness}
//               {type: "run", id, code, suites}
// Messages out: {type: "ready"} | {type: "result", id, result} | {type: "error", id, message}

let booting = null;
let runJson = null;

async function boot(message) {
  const module = await import(message.pyodide);
  const pyodide = await module.loadPyodide({
    indexURL: message.index,
    stdout: function () {},
    stderr: function () {},
  });
  const response = await fetch(message.harness, { credentials: "same-origin" });
  if (!response.ok) throw new Error("the test harness could not be loaded (" + response.status + ")");
  // A namespace of its own, named so that the harness's command-line entry does not run.
  const namespace = pyodide.globals.get("dict")();
  namespace.set("__name__", "prefill_harness");
  pyodide.runPython(await response.text(), { globals: namespace, filename: "harness.py" });
  runJson = namespace.get("run_json");
}

self.onmessage = async function (event) {
  const message = event.data;
  if (message.type === "boot") {
    booting = booting || boot(message);
    try {
      await booting;
      self.postMessage({ type: "ready" });
    } catch (error) {
      booting = null;
      self.postMessage({ type: "error", id: null, message: String(error && error.message || error) });
    }
    return;
  }
  if (message.type === "run") {
    try {
      await booting;
      const request = JSON.stringify({ candidates: { code: message.code }, suites: message.suites });
      const result = JSON.parse(runJson(request)).code;
      self.postMessage({ type: "result", id: message.id, result: result });
    } catch (error) {
      self.postMessage({ type: "error", id: message.id, message: String(error && error.message || error) });
    }
  }
};
