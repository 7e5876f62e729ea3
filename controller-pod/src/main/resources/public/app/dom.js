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

/**
 * Keyed list: keep one element per item and rebuild an item only when its own data changed, so that a
 * change elsewhere (someone starts speaking) never replaces the button a person is pressing (a click is
 * lost when its element is replaced between mouse down and mouse up).
 * @template T
 * @param {HTMLElement} container
 * @param {T[]} items
 * @param {(item:T) => string} idOf     stable identity
 * @param {(item:T) => string} dataKeyOf  changes whenever the item must be rebuilt
 * @param {(item:T) => HTMLElement} render
 * @param {Map<string, {key:string, el:HTMLElement}>} cache  kept by the caller between calls
 */
export function keyedList(container, items, idOf, dataKeyOf, render, cache) {
  const seen = new Set();
  let i = 0;
  for (const item of items) {
    const id = idOf(item);
    const key = dataKeyOf(item);
    seen.add(id);
    let entry = cache.get(id);
    if (!entry || entry.key !== key) {
      const el = render(item);
      if (entry) replaceKeepingFocus(entry.el, el);
      entry = { key, el };
      cache.set(id, entry);
    }
    if (container.children[i] !== entry.el) container.insertBefore(entry.el, container.children[i] || null);
    i++;
  }
  for (const [id, entry] of cache) if (!seen.has(id)) { entry.el.remove(); cache.delete(id); }
  while (container.children.length > i) container.children[i].remove();
}

/** Swap one element for another, keeping focus (data-focus) and open <details data-key>. */
function replaceKeepingFocus(old, el) {
  const active = document.activeElement;
  const focusKey = active && old.contains(active) ? active.getAttribute('data-focus') : null;
  const open = new Set([...old.querySelectorAll('details[open][data-key]')].map((d) => d.dataset.key));
  if (old.matches?.('details[open][data-key]')) open.add(old.dataset.key);
  if (old.parentNode) old.replaceWith(el);
  for (const d of [el, ...el.querySelectorAll('details[data-key]')]) if (d.matches?.('details[data-key]') && open.has(d.dataset.key)) d.open = true;
  if (focusKey) el.querySelector(`[data-focus="${CSS.escape(focusKey)}"]`)?.focus();
}
