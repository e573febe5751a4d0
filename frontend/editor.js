// The exercise editor: CodeMirror 6 over a plain <textarea name="code">, bundled by `make` with
// esbuild into static/vendor/editor/editor.js (never committed). Without JavaScript the textarea
// is the editor; with it, CodeMirror takes its place and writes every change back into it, so
// the form, the autosave and the runner all read one field.
//
// Keyboard: Tab indents (Shift-Tab dedents). Escape, then Tab, moves focus out of the editor,
// as CodeMirror's tab-focus mode does; Ctrl-M (or Alt-Shift-M on macOS) toggles that mode.
import { EditorState } from "@codemirror/state";
import {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
} from "@codemirror/view";
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab,
} from "@codemirror/commands";
import {
  indentOnInput,
  bracketMatching,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { classHighlighter } from "@lezer/highlight";
import { StyleModule } from "style-mod";

// CodeMirror mounts its base theme through style-mod, which writes a <style> element into a
// document: the site's CSP (style-src 'self') refuses that. Mount the same rules into one
// constructed stylesheet adopted by the document instead (CSSOM, which the CSP allows). Adopted
// sheets come after the site's own in the cascade, so the site's editor rules are one class more
// specific (static/css/exercises.css).
const adopted = new CSSStyleSheet();
const mounted = [];
StyleModule.mount = function (root, modules) {
  let added = false;
  for (const module of Array.isArray(modules) ? modules : [modules]) {
    if (!mounted.includes(module)) {
      mounted.push(module);
      added = true;
    }
  }
  if (added) adopted.replaceSync(mounted.map((module) => module.getRules()).join("\n"));
  if (!root.adoptedStyleSheets.includes(adopted)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, adopted];
  }
};

function attach(textarea, options) {
  const settings = options || {};
  const onChange = settings.onChange || function () {};
  const labelledBy = textarea.getAttribute("aria-labelledby") || "";
  const describedBy = textarea.getAttribute("aria-describedby") || "";
  const contentAttributes = { "aria-labelledby": labelledBy };
  if (describedBy) contentAttributes["aria-describedby"] = describedBy;
  const view = new EditorView({
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        indentOnInput(),
        bracketMatching(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        python(),
        // Token classes (tok-keyword, tok-string, …) styled by the site's stylesheet, so the
        // colours follow the light and dark themes and no style is injected per token.
        syntaxHighlighting(classHighlighter),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.contentAttributes.of(contentAttributes),
        // CodeMirror owns its root element's class list: a class set on view.dom by hand is
        // dropped at the next update, so it is declared here.
        EditorView.editorAttributes.of({ class: "code-editor" }),
        EditorView.updateListener.of(function (update) {
          if (!update.docChanged) return;
          textarea.value = update.state.doc.toString();
          onChange(textarea.value);
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.insertAdjacentElement("afterend", view.dom);
  return {
    view: view,
    getValue: function () {
      return view.state.doc.toString();
    },
    setValue: function (text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: function () {
      view.focus();
    },
  };
}

window.PrefillEditor = { attach: attach };
