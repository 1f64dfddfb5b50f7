import { el } from './dom.js';

/**
 * The cards of an answer: `cards[kind](spec)` for the agent's parameter and clarification cards,
 * and `mcqCard(mcq)` for a confirmation. Their answers go out through `answer.send(input)`, and
 * nothing is sent while `answer.busy()` (a question is still streaming).
 */
export function makeCards(answer) {
  const cards = {
    params(spec) {
      const card = el('section', { className: 'card params' });
      card.setAttribute('aria-label', spec.operation ?? 'Details');
      card.append(el('h3', { textContent: spec.operation ?? 'Details' }));
      const list = el('dl');
      for (const item of spec.applied ?? [])
        list.append(el('dt', { textContent: item.label }), el('dd', { textContent: String(item.value) }));
      const pending = el('dl', { className: 'pending' });
      for (const item of spec.pending ?? [])
        pending.append(el('dt', { textContent: item.label }), el('dd', { textContent: item.hint ?? '' }));
      card.append(list, pending);
      return card;
    },
    clarification(spec) {
      const options = Array.isArray(spec.options) ? spec.options : [];
      const type = spec.type === 'dropdown' || spec.type === 'checkbox' ? spec.type : 'radio';
      const name = `clarify-${Math.random().toString(36).slice(2)}`;
      const form = el('form', { className: 'card clarification' });
      const set = el('fieldset', {}, el('legend', { textContent: spec.question ?? 'Please choose' }));
      if (type === 'dropdown') {
        const select = el('select', { name });
        select.setAttribute('aria-label', spec.question ?? 'Choose');
        for (const option of options)
          select.append(el('option', { value: option.value, textContent: option.label }));
        set.append(select);
      } else {
        for (const option of options) {
          const input = el('input', {
            type: type === 'checkbox' ? 'checkbox' : 'radio',
            name,
            value: option.value,
          });
          input.dataset.label = option.label;
          set.append(el('label', {}, input, ` ${option.label}`), el('br'));
        }
      }
      const submit = el('button', { type: 'submit', className: 'primary', textContent: 'Send answer' });
      form.append(set, submit);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        let labels;
        if (type === 'dropdown') {
          const select = form.querySelector('select');
          labels = [select.selectedOptions[0]?.textContent ?? ''];
        } else {
          labels = [...form.querySelectorAll('input:checked')].map((input) => input.dataset.label);
        }
        if (labels.length === 0 || answer.busy()) return;
        for (const control of form.querySelectorAll('input, select, button')) control.disabled = true;
        answer.send({ query: labels.join(', ') });
      });
      return form;
    },
  };

  function mcqCard(mcq) {
    const card = el('section', { className: 'card mcq' });
    card.setAttribute('role', 'group');
    card.setAttribute('aria-label', 'Confirmation needed');
    if (mcq.unrequested) {
      card.classList.add('unrequested');
      card.append(
        el('p', {
          className: 'warning',
          textContent:
            'You did not ask for this change. It was suggested by something munim read — check it before confirming.',
        }),
      );
    }
    const changes = mcq.changes ?? [];
    // The changes are listed below: the question's own lines of them would say it twice.
    card.append(el('h3', { textContent: changes.length > 0 ? mcq.question.split('\n')[0] : mcq.question }));
    // Facts in words from the agent; the call's ids and tool name are not for people to read.
    const facts = mcq.details ?? (mcq.record ? [{ label: 'Record', value: mcq.record }] : []);
    if (facts.length > 0) {
      const details = el('dl');
      for (const { label, value } of facts) {
        details.append(el('dt', { textContent: label }), el('dd', { textContent: value }));
      }
      card.append(details);
    }
    if (changes.length > 0) {
      const list = el('dl', { className: 'changes' });
      for (const change of changes) {
        const now = change.before === undefined ? 'set to ' : `${change.before} → `;
        list.append(
          el('dt', { textContent: change.field }),
          el('dd', { textContent: `${now}${change.after}` }),
        );
      }
      card.append(list);
    }
    let typed = null;
    if (mcq.confirm_text) {
      typed = el('input', { type: 'text', autocomplete: 'off', className: 'typed-input' });
      card.append(el('label', { className: 'typed' }, `Type "${mcq.confirm_text}" to confirm: `, typed));
    }
    const buttons = el('div', { className: 'options' });
    for (const option of mcq.options) {
      const button = el('button', {
        type: 'button',
        textContent: option.label,
        className: option.value === 'confirm' ? 'primary' : '',
      });
      button.dataset.value = option.value;
      if (option.value === 'confirm' && typed) {
        button.disabled = true;
        typed.addEventListener('input', () => {
          button.disabled = typed.value.trim() !== mcq.confirm_text;
        });
      }
      button.addEventListener('click', () => {
        if (answer.busy()) return;
        for (const control of card.querySelectorAll('button, input')) control.disabled = true;
        card.append(
          el('p', {
            className: 'done',
            textContent: option.value === 'confirm' ? 'Confirmed.' : 'Cancelled.',
          }),
        );
        answer.send({
          mcqResponse: {
            actionId: mcq.actionId,
            value: option.value,
            ...(typed && option.value === 'confirm' ? { typedConfirmation: typed.value.trim() } : {}),
          },
        });
      });
      buttons.append(button);
    }
    card.append(buttons);
    return card;
  }

  return { cards, mcqCard };
}

/** Thumbs up and down for an answer; `send(signal)` posts the feedback and resolves to its response. */
export function feedbackButtons(send) {
  const make = (signal, label, text) => {
    const button = el('button', { type: 'button', textContent: text });
    button.setAttribute('aria-label', label);
    button.setAttribute('aria-pressed', 'false');
    button.dataset.signal = signal;
    button.addEventListener('click', async () => {
      const response = await send(signal);
      if (response.ok) {
        for (const other of button.parentElement.querySelectorAll('[data-signal]'))
          other.setAttribute('aria-pressed', 'false');
        button.setAttribute('aria-pressed', 'true');
      }
    });
    return button;
  };
  return [make('thumbs_up', 'Good answer', '▲ Helpful'), make('thumbs_down', 'Bad answer', '▼ Not helpful')];
}
