// Webhooks: every outgoing webhook, whether it is enabled (a disabled one is
// an incident: its alerts are not sent), its failures in a row and last
// delivery. An admin creates, tests, enables/disables and deletes them.
import * as api from './api.js';
import {h, fill, time, truncate} from './dom.js';
import {webhookForm, secretBox, stateBadge, disabledReason, testButton, enableButton,
        deleteButton, refreshAfter} from './webhook_form.js';

export function mountWebhooks(main, ctx) {
  const alertBox = h('div', {});
  const secretArea = h('div', {});
  const outcomeBox = h('div', {'aria-live': 'polite'});
  const tableBox = h('section', {class: 'card'}, h('p', {class: 'muted'}, 'Loading…'));
  let formBox = null;
  if (ctx.canAct) {
    formBox = h('section', {class: 'card', 'data-test': 'new-webhook'});
    resetForm();
  }
  fill(main, h('h1', {}, 'Webhooks'),
       h('p', {class: 'muted'}, 'Redrive POSTs job and queue events to these URLs. ' +
         'A webhook disables itself after 20 failed attempts in a row.'),
       alertBox, secretArea, outcomeBox, tableBox, formBox);

  function resetForm() {
    fill(formBox, h('h2', {}, 'New webhook'), webhookForm({onSaved: (created) => {
      fill(secretArea, secretBox(created, () => fill(secretArea)));
      secretArea.scrollIntoView({block: 'start'});
      resetForm();
      refreshAfter(refresh)();
    }}));
  }

  async function refresh() {
    const hooks = await api.get('/outgoing-webhooks');
    const disabled = hooks.filter((w) => !w.enabled);
    fill(alertBox, disabled.length === 0 ? null : h('p', {class: 'incident', role: 'alert',
      'data-test': 'disabled-alert'},
      h('strong', {}, `${disabled.length} webhook${disabled.length > 1 ? 's are' : ' is'} disabled`),
      `: ${disabled.map((w) => w.name).join(', ')}. Their events are not being sent.`));
    fill(tableBox, h('h2', {}, 'Webhooks'), webhookTable(hooks, ctx, outcomeBox, refresh));
  }
  return {refresh};
}

function webhookTable(hooks, ctx, outcomeBox, refresh) {
  if (hooks.length === 0) {
    return h('p', {class: 'empty'}, ctx.canAct ? 'No webhooks yet. Create one below.'
                                               : 'No webhooks are configured.');
  }
  const after = refreshAfter(refresh);
  return h('table', {class: 'grid', 'data-test': 'webhooks'},
    h('thead', {}, h('tr', {},
      ['Name', 'URL', 'Events', 'Format', 'State', 'Failures in a row', 'Last delivery'].map(
        (t) => h('th', {class: t === 'Failures in a row' ? 'num' : ''}, t)),
      ctx.canAct ? h('th', {}, '') : null)),
    h('tbody', {}, hooks.map((w) => h('tr', {'data-id': w.id, 'data-name': w.name,
                                             class: w.enabled ? '' : 'row-disabled'},
      h('td', {}, h('a', {href: `#/webhooks/${api.enc(w.id)}`, class: 'webhook-name'}, w.name)),
      h('td', {class: 'mono url', title: w.url}, truncate(w.url, 60)),
      h('td', {}, w.events.map((e) => h('span', {class: 'tag'}, e))),
      h('td', {}, w.format),
      h('td', {}, stateBadge(w), disabledReason(w)),
      h('td', {class: `num ${w.consecutive_failures > 0 ? 'failures' : ''}`},
        String(w.consecutive_failures)),
      h('td', {}, time(w.last_delivery_at)),
      ctx.canAct ? h('td', {class: 'row-actions'}, testButton(w, outcomeBox, after),
                     enableButton(w, after), deleteButton(w, after)) : null))));
}
