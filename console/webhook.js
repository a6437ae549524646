// One webhook: its state and settings, an edit form (admin), and its
// deliveries filtered by status, paged, newest first; a delivery opens to
// show the exact body that was POSTed.
import * as api from './api.js';
import {h, fill, time, statusBadge, truncate, pager} from './dom.js';
import {webhookForm, stateBadge, disabledReason, testButton, enableButton, deleteButton,
        refreshAfter} from './webhook_form.js';
import {showNotice} from './ui.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'];
const PAGE_SIZE = 25;

// `params`: the hash query (status, page).
export function mountWebhook(main, ctx, id, params) {
  const path = `/outgoing-webhooks/${api.enc(id)}`;
  const filters = {status: params.get('status') || '',
                   page: Math.max(0, Number(params.get('page') || 0) || 0)};
  const expanded = new Set();  // delivery ids whose body is open, kept across refreshes
  let editing = false;         // the poll leaves the form alone while the operator types
  const head = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const outcomeBox = h('div', {'aria-live': 'polite'});
  const factsBox = h('section', {class: 'card'});
  const formBox = ctx.canAct ? h('section', {class: 'card', 'data-test': 'edit-webhook'}) : null;
  const deliveriesBox = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  fill(main, head, outcomeBox, h('div', {class: formBox ? 'columns' : ''}, factsBox, formBox),
       h('section', {class: 'card'}, h('h2', {}, 'Deliveries'),
         statusFilter(id, filters), deliveriesBox));

  async function refresh() {
    const [w, deliveries] = await Promise.all([
      api.get(path),
      api.get(`${path}/deliveries${api.query({status: filters.status, limit: PAGE_SIZE,
                                               offset: filters.page * PAGE_SIZE})}`)]);
    const after = refreshAfter(refresh);
    fill(head,
      h('p', {}, h('a', {href: '#/webhooks'}, '← Webhooks')),
      h('h1', {}, 'Webhook ', h('span', {}, w.name), ' ', stateBadge(w)),
      disabledReason(w),
      ctx.canAct ? h('div', {class: 'actions', 'data-test': 'webhook-actions'},
        testButton(w, outcomeBox, after), enableButton(w, after),
        deleteButton(w, () => { location.hash = '#/webhooks'; })) : null);
    fill(factsBox, h('h2', {}, 'Settings'), facts(w));
    if (formBox && !editing) {
      fill(formBox, h('h2', {}, 'Edit'), webhookForm({
        webhook: w,
        onEdit: () => { editing = true; },
        onSaved: (saved) => {
          showNotice(`Webhook ${saved.name} saved.`);
          editing = false;
          after();
        }}));
    }
    fill(deliveriesBox, deliveryTable(deliveries, expanded, filters),
         pager(filters.page, deliveries.length === PAGE_SIZE, (page) =>
           `#/webhooks/${api.enc(id)}${api.query({status: filters.status, page: page || ''})}`));
  }
  return {refresh};
}

function facts(w) {
  const row = (label, value, cls) => [h('dt', {}, label), h('dd', {class: cls || ''}, value)];
  return h('dl', {class: 'facts', 'data-test': 'webhook-facts'},
    row('State', [stateBadge(w), w.enabled ? '' : ` ${w.disabled_reason || 'disabled by an operator'}`],
        w.enabled ? '' : 'danger-text'),
    row('URL', h('span', {class: 'mono'}, w.url)),
    row('Events', w.events.map((e) => h('span', {class: 'tag'}, e))),
    row('Format', w.format),
    row('Secret', w.has_secret ? 'set (never shown again)' : 'none'),
    row('Failures in a row', String(w.consecutive_failures),
        w.consecutive_failures > 0 ? 'danger-text' : ''),
    row('Last delivery', time(w.last_delivery_at)),
    row('Created', time(w.created_at)), row('Updated', time(w.updated_at)),
    row('Id', h('span', {class: 'mono'}, w.id)));
}

function statusFilter(id, filters) {
  const select = h('select', {name: 'status', 'data-test': 'filter-delivery-status'},
    h('option', {value: ''}, 'any status'),
    DELIVERY_STATUSES.map((s) => h('option', {value: s}, s)));
  select.value = filters.status;
  select.addEventListener('change', () => {
    location.hash = `#/webhooks/${api.enc(id)}${api.query({status: select.value})}`;
  });
  return h('div', {class: 'filters'}, h('label', {}, 'Status ', select));
}

const COLUMNS = ['Event', 'Status', 'Attempts', 'Last status', 'Last error', 'Created',
                 'Next attempt / delivered'];

function deliveryTable(deliveries, expanded, filters) {
  if (deliveries.length === 0) {
    return h('p', {class: 'empty'}, filters.status || filters.page
      ? 'No deliveries match.' : 'No deliveries yet. Send a test to make one.');
  }
  return h('table', {class: 'grid deliveries', 'data-test': 'deliveries'},
    h('thead', {}, h('tr', {}, COLUMNS.map((t) =>
      h('th', {class: ['Attempts', 'Last status'].includes(t) ? 'num' : ''}, t)))),
    h('tbody', {}, deliveries.map((d) => deliveryRows(d, expanded))));
}

function deliveryRows(d, expanded) {
  const bodyRow = () => h('tr', {class: 'body-row', 'data-body-of': d.id},
    h('td', {colspan: String(COLUMNS.length)},
      h('div', {class: 'muted small'}, `Event ${d.event_id} · delivery ${d.id}`,
        d.duration_ms !== null && d.duration_ms !== undefined ? ` · last attempt ${d.duration_ms} ms` : ''),
      h('pre', {class: 'payload', 'data-test': 'delivery-body'}, prettyBody(d.body))));
  // A <details> so the row opens without a button; the body goes in its own
  // full-width row below.
  const toggle = h('details', {class: 'row-toggle', open: expanded.has(d.id)},
                   h('summary', {}, h('span', {class: 'mono'}, d.event)));
  const row = h('tr', {'data-id': d.id, 'data-event': d.event},
    h('td', {}, toggle),
    h('td', {}, statusBadge(d.status)),
    h('td', {class: 'num'}, String(d.attempts)),
    h('td', {class: `num ${d.last_status_code >= 300 ? 'danger-text' : ''}`},
      d.last_status_code === null || d.last_status_code === undefined ? '—' : String(d.last_status_code)),
    h('td', {class: 'error-text', title: d.last_error || ''}, truncate(d.last_error, 80)),
    h('td', {}, time(d.created_at)),
    h('td', {}, d.status === 'pending' ? ['next ', time(d.next_attempt_at)]
              : d.status === 'delivered' ? time(d.delivered_at)
              : h('span', {class: 'muted'}, 'given up')));
  toggle.addEventListener('toggle', () => {
    const next = row.nextElementSibling;
    const shown = next && next.dataset.bodyOf === d.id;
    if (toggle.open) {
      expanded.add(d.id);
      if (!shown) row.after(bodyRow());
    } else {
      expanded.delete(d.id);
      if (shown) next.remove();
    }
  });
  return expanded.has(d.id) ? [row, bodyRow()] : [row];
}

// The body as sent, indented; text only.
function prettyBody(body) {
  if (typeof body === 'string') {
    try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
  }
  return JSON.stringify(body, null, 2);
}
