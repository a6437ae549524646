// The auto-redrive switch of an error class (GET /autoredrive, PUT
// /queues/{name}/autoredrive): one policy per queue, for one class. The
// switch is on when the queue's policy is enabled for this class; beside it,
// the policy's live phase. Switching on keeps the queue's other settings
// (cool-down, canaries, rate, ceiling) when it already targets this class,
// and starts from the defaults otherwise; switching off keeps them all.
import * as api from './api.js';
import {h, relativeTime} from './dom.js';
import {showError, showNotice} from './ui.js';

// Every queue's policy, by queue name.
export async function loadPolicies() {
  const list = await api.get('/autoredrive');
  return new Map(list.map((p) => [p.queue_name, p]));
}

// The policy's settings as PUT takes them (the whole policy).
function settingsOf(p) {
  return {fingerprint: p.fingerprint, dead_reason: p.dead_reason ?? undefined,
          cooldown_seconds: p.cooldown_seconds, max_cooldown_seconds: p.max_cooldown_seconds,
          canary_size: p.canary_size, rate_per_second: p.rate_per_second,
          max_revivals_per_job: p.max_revivals_per_job};
}

// "canary: 2 of 3 redriven", "cooling: next check in 4 min", ...
export function phaseText(p) {
  const s = p.state;
  switch (s.phase) {
    case 'canary':
    case 'wave': {
      const what = s.phase === 'canary' ? 'canary' : `wave ${s.wave}`;
      return `${what}: ${s.batch_redriven} of ${s.batch_size} redriven`;
    }
    case 'cooling':
    case 'backed_off':
      return `${s.phase === 'cooling' ? 'cooling' : 'backed off'}` +
             (s.next_check_at ? `: next check ${relativeTime(s.next_check_at)}` : '');
    default:
      return 'off';
  }
}

// The cell of one class: a switch and the live phase (a viewer, who may not
// change it, sees the phase only). `onChange` runs after a successful switch
// (to refresh the panel).
export function autoredriveCell(group, policy, canAct, onChange) {
  const mine = policy && policy.fingerprint === group.fingerprint;
  if (!canAct) {
    return h('span', {class: 'muted', 'data-test': 'autoredrive-phase'},
             `Auto-redrive: ${mine ? phaseText(policy) : 'off'}`);
  }
  const on = Boolean(mine && policy.enabled);
  const box = h('input', {type: 'checkbox', checked: on, 'data-test': 'autoredrive-switch',
                          'aria-label': `auto-redrive ${group.queue_name} class ${group.fingerprint}`});
  box.addEventListener('change', async () => {
    box.disabled = true;
    const settings = mine ? settingsOf(policy) : {fingerprint: group.fingerprint};
    try {
      await api.put(`/queues/${api.enc(group.queue_name)}/autoredrive`,
                    {...settings, enabled: box.checked});
      showNotice(`Auto-redrive ${box.checked ? 'on' : 'off'} for queue ${group.queue_name}` +
                 (box.checked && policy && !mine ? ' (it replaces the queue\'s other class)' : ''));
      onChange();
    } catch (err) {
      box.checked = !box.checked;
      box.disabled = false;
      showError(err, 'Auto-redrive');
    }
  });
  const phase = mine
    ? h('span', {class: 'muted', 'data-test': 'autoredrive-phase',
                 title: policy.state.last_reason || ''}, phaseText(policy))
    : null;
  return h('label', {class: 'autoredrive'}, box, ' Auto-redrive ', phase);
}
