// Runs an exercise's tests in a Web Worker with a time limit (static/js/exercise-worker.js).
// window.PrefillRunner.create(options) → a runner with run(code, suites) and stop(). A run that
// outlives the limit, or that the reader stops, terminates the worker; the next run starts a
// fresh one (and boots Python again), so a `while True:` never freezes the page.
(function () {
  "use strict";

  function create(options) {
    let worker = null;
    let ready = null; // a promise, resolved when the worker has booted Python
    let pending = null; // {id, resolve, reject, timer}
    let rejectBoot = null; // while Python boots: stopping must settle the run that waits on it
    let nextId = 1;

    function fail(error) {
      if (!pending) return;
      const current = pending;
      pending = null;
      clearTimeout(current.timer);
      current.reject(error);
    }

    function discard(reason) {
      if (worker) worker.terminate();
      worker = null;
      ready = null;
      if (rejectBoot) {
        const reject = rejectBoot;
        rejectBoot = null;
        reject(reason || new Error("Stopped."));
      }
    }

    function start() {
      if (ready) return ready;
      if (!options.pyodide) return Promise.reject(new Error("The Python runtime is not installed on this server (run make)."));
      worker = new Worker(options.worker, { type: "module" });
      let booted;
      ready = new Promise(function (resolve, reject) {
        booted = function () {
          rejectBoot = null;
          resolve();
        };
        rejectBoot = reject;
      });
      worker.onmessage = function (event) {
        const message = event.data;
        if (message.type === "ready") booted();
        else if (message.type === "result" && pending && message.id === pending.id) {
          const current = pending;
          pending = null;
          clearTimeout(current.timer);
          current.resolve(message.result);
        } else if (message.type === "error") {
          const error = new Error(message.message);
          if (message.id === null) discard(error);
          else fail(error);
        }
      };
      worker.onerror = function (event) {
        const error = new Error(event.message || "The Python worker failed to start.");
        discard(error);
        fail(error);
      };
      worker.postMessage({ type: "boot", pyodide: options.pyodide, index: options.index, harness: options.harness });
      return ready;
    }

    function run(code, suites) {
      if (pending) return Promise.reject(new Error("A run is already in progress."));
      return start().then(function () {
        return new Promise(function (resolve, reject) {
          const id = nextId++;
          const limit = options.timeLimitSeconds * 1000;
          const timer = setTimeout(function () {
            discard();
            const error = new Error("Stopped after " + options.timeLimitSeconds + " s: the time limit. Is there a loop that never ends?");
            error.stopped = true;
            fail(error);
          }, limit);
          pending = { id: id, resolve: resolve, reject: reject, timer: timer };
          worker.postMessage({ type: "run", id: id, code: code, suites: suites });
        });
      });
    }

    function stop() {
      const error = new Error("Stopped.");
      error.stopped = true;
      discard(error);
      fail(error);
    }

    return { run: run, stop: stop, start: start, busy: function () { return Boolean(pending); } };
  }

  window.PrefillRunner = { create: create };
})();
