// An exercise page: the editor over <textarea name="code">, "Run tests" (the visible tests),
// "Submit" (every test; a member's result is saved), "Stop", the results, and the draft (a
// member's autosaves to the server; a visitor's stays in this browser's localStorage).
// Without JavaScript none of this runs: the page says so, and a member's "Save draft" posts.
(function () {
  "use strict";

  const AUTOSAVE_DELAY_MS = 1500;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function formatMs(ms) {
    return ms < 10 ? ms.toFixed(2) + " ms" : Math.round(ms) + " ms";
  }

  function summaryText(result) {
    return result.passed + " passed, " + result.failed + " failed";
  }

  function renderTest(test) {
    const item = element("li", "test-result " + (test.passed ? "passed" : "failed"));
    const head = element("p", "test-head");
    head.appendChild(element("span", "test-verdict", test.passed ? "Passed" : "Failed"));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(element("code", "test-name", test.name));
    if (test.suite === "submit") head.appendChild(element("span", "badge", "submit"));
    head.appendChild(element("span", "muted small test-time", formatMs(test.ms)));
    item.appendChild(head);
    if (test.doc) item.appendChild(element("p", "muted small test-doc", test.doc));
    if (!test.passed) {
      if (test.expected !== null || test.got !== null) {
        const values = element("dl", "test-values");
        values.appendChild(element("dt", null, "Expected"));
        values.appendChild(element("dd")).appendChild(element("code", null, test.expected));
        values.appendChild(element("dt", null, "Got"));
        values.appendChild(element("dd")).appendChild(element("code", null, test.got));
        item.appendChild(values);
        if (test.message) item.appendChild(element("p", "test-message", "assert " + test.message));
      } else if (test.message) {
        item.appendChild(element("pre", "test-error", test.message));
      }
    }
    if (test.stdout) {
      const output = element("details", "test-stdout");
      output.appendChild(element("summary", null, "Printed output"));
      output.appendChild(element("pre", null, test.stdout));
      item.appendChild(output);
    }
    return item;
  }

  function setup(form) {
    const results = document.querySelector("[data-results]");
    const summary = results.querySelector("[data-summary]");
    const details = results.querySelector("[data-details]");
    const textarea = form.querySelector("textarea[name=code]");
    const buttons = {
      run: form.querySelector("[data-action=run]"),
      submit: form.querySelector("[data-action=submit]"),
      stop: form.querySelector("[data-action=stop]"),
    };
    const saveStatus = form.querySelector("[data-save-status]");
    const member = form.dataset.member === "1";
    const storageKey = "prefill-exercise:" + form.dataset.exercise;
    const visibleSuite = JSON.parse(document.getElementById("visible-suite").textContent);
    let submitSuite = null;

    form.querySelectorAll("[data-no-js]").forEach(function (note) { note.hidden = true; });
    [buttons.run, buttons.submit, buttons.stop].forEach(function (button) { button.hidden = false; });

    // A visitor's code survives a reload in this browser (members autosave to their account).
    if (!member) {
      try {
        const kept = window.localStorage.getItem(storageKey);
        if (kept && kept !== textarea.value) textarea.value = kept;
      } catch (error) { /* storage may be off: the starter code stays */ }
    }

    let autosaveTimer = null;
    function autosave() {
      const body = new FormData(form);
      fetch(form.dataset.draftUrl, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      }).then(function (response) {
        return response.json().then(function (data) { saveStatus.textContent = data.message; });
      }).catch(function () {
        saveStatus.textContent = "Not saved: the connection failed. Your code is still here.";
      });
    }
    function changed(value) {
      if (member) {
        clearTimeout(autosaveTimer);
        autosaveTimer = setTimeout(autosave, AUTOSAVE_DELAY_MS);
      } else {
        try { window.localStorage.setItem(storageKey, value); } catch (error) { /* ignored */ }
      }
    }

    const editor = window.PrefillEditor
      ? window.PrefillEditor.attach(textarea, { onChange: changed })
      : null;
    if (!editor) textarea.addEventListener("input", function () { changed(textarea.value); });

    const runner = window.PrefillRunner.create({
      worker: form.dataset.worker,
      pyodide: form.dataset.pyodide,
      index: form.dataset.pyodideIndex,
      harness: form.dataset.harness,
      timeLimitSeconds: Number(form.dataset.timeLimit) || 5,
    });

    function busy(on) {
      buttons.run.disabled = on;
      buttons.submit.disabled = on;
      buttons.stop.disabled = !on;
      results.setAttribute("aria-busy", on ? "true" : "false");
    }

    function show(result, label) {
      details.replaceChildren();
      if (result.error && !result.tests.length) {
        summary.textContent = result.error;
        return;
      }
      const total = result.tests.reduce(function (sum, test) { return sum + test.ms; }, 0);
      summary.textContent = summaryText(result) + " · " + label + " · " + formatMs(total);
      summary.className = "results-summary " + (result.failed ? "has-failures" : "all-passed");
      const list = element("ol", "test-results");
      result.tests.forEach(function (test) { list.appendChild(renderTest(test)); });
      details.appendChild(list);
    }

    function showError(error) {
      details.replaceChildren();
      summary.className = "results-summary has-failures";
      summary.textContent = error.message;
    }

    function runSuites(code, suites) {
      return runner.run(code, suites);
    }

    function fetchSubmitSuite() {
      if (submitSuite) return Promise.resolve(submitSuite);
      return fetch(form.dataset.submitTests, { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("The submit tests could not be loaded (" + response.status + ").");
          return response.json();
        })
        .then(function (data) {
          submitSuite = data.suite;
          return submitSuite;
        });
    }

    function record(code, result) {
      const body = new FormData(form);
      body.set("code", code);
      body.set("results", JSON.stringify(result.tests.map(function (test) {
        return { name: test.name, passed: test.passed };
      })));
      return fetch(form.dataset.submitUrl, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      }).then(function (response) {
        return response.json().then(function (data) {
          saveStatus.textContent = data.message;
          if (response.ok) {
            const link = element("a", null, "See your progress");
            link.href = "/me";
            const note = element("p", "submission-saved", data.message + " ");
            note.appendChild(link);
            details.prepend(note);
            return refreshSubmissions();
          }
        });
      }).catch(function () {
        saveStatus.textContent = "The result was not saved: the connection failed. Submit again.";
      });
    }

    // The list of submissions under the editor, as the server now has it (this page's own).
    function refreshSubmissions() {
      return fetch(window.location.pathname, { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          if (!html) return;
          const page = new DOMParser().parseFromString(html, "text/html");
          const fresh = page.getElementById("submissions");
          const here = document.getElementById("submissions");
          if (fresh && here) here.replaceWith(document.importNode(fresh, true));
        })
        .catch(function () { /* the saved note above already says it was saved */ });
    }

    function current() {
      return editor ? editor.getValue() : textarea.value;
    }

    buttons.run.addEventListener("click", function () {
      busy(true);
      summary.className = "results-summary";
      summary.textContent = "Running " + visibleSuite.count + " tests…";
      details.replaceChildren();
      runSuites(current(), [visibleSuite])
        .then(function (result) { show(result, "visible tests"); })
        .catch(showError)
        .finally(function () { busy(false); });
    });

    buttons.submit.addEventListener("click", function () {
      busy(true);
      summary.className = "results-summary";
      summary.textContent = "Running every test…";
      details.replaceChildren();
      const code = current();
      fetchSubmitSuite()
        .then(function (suite) { return runSuites(code, [visibleSuite, suite]); })
        .then(function (result) {
          show(result, "every test");
          if (member && !(result.error && !result.tests.length)) return record(code, result);
          if (!member) {
            details.prepend(element("p", "muted small", "Sign up free to save submissions; this run was not saved."));
          }
        })
        .catch(showError)
        .finally(function () { busy(false); });
    });

    buttons.stop.addEventListener("click", function () {
      runner.stop();
    });

    // For the browser tests: run any code and suites through this page's own worker.
    window.PrefillExercise = { runSuites: runSuites, runner: runner };
  }

  function init() {
    const form = document.getElementById("exercise-form");
    if (form && window.PrefillRunner) setup(form);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
