// Minimal DOM helpers: no framework, no build step.

/**
 * Create an element. attrs: plain attributes, `on*` functions become listeners, `class`, `style`
 * (object), `dataset` (object). Children: strings, nodes, arrays, null/false (skipped).
 * @param {string} tag @param {Object} [attrs] @param {...any} children @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replace a container's children, keeping keyboard focus on the element with the same
 * `data-focus` key and keeping <details data-key> open state (re-renders must not steal focus).
 * @param {HTMLElement} container @param {Node|Node[]} content
 */
export function replace(container, content) {
  const active = document.activeElement;
  const focusKey = active && container.contains(active) ? active.getAttribute('data-focus') : null;
  const open = new Set([...container.querySelectorAll('details[open][data-key]')].map((d) => d.dataset.key));
  container.replaceChildren(...(Array.isArray(content) ? content : [content]).filter(Boolean));
  for (const d of container.querySelectorAll('details[data-key]')) if (open.has(d.dataset.key)) d.open = true;
  if (focusKey) {
    const again = container.querySelector(`[data-focus="${CSS.escape(focusKey)}"]`);
    if (again) again.focus();
  }
}

/** Short text for a person's initials (avatar when there is no video). */
export function initials(name) {
  return (name || '?').split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join('') || '?';
}
