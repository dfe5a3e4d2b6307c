import type { CreatedWebhook, Delivery, Webhook } from '@dss/sdk';
import { useState, type FormEvent } from 'react';
import { CATALOGUE, FEED_EVENT_TYPES, type FeedEventType } from '../../../../src/events-feed/catalogue';
import { Loaded, Outcome, useAction, useLoad } from '../../actions';
import type { Answer } from '../../api';
import { day, when } from '../../words';
import type { OrgSession } from './org-session';

const hookPath = (webhookId: string, rest = '') => `/org/v1/webhooks/${webhookId}${rest}`;

/** /org/{id}/webhooks (contract §12, R-WEB-60): the organization's webhooks, each with its delivery log, Send test and Retry. */
export function Webhooks({ org }: { readonly org: OrgSession }) {
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        A webhook sends your systems each event of the organization as it happens (a request accepted, a record updated, a copy kept),
        signed per Standard Webhooks so they can check it came from us. It holds ids and versions, never personal data.
      </p>
      {org.can('member_manage') ? (
        <WebhookAdmin org={org} />
      ) : (
        <p className="note">Only a member who may manage members sees and adds webhooks.</p>
      )}
    </>
  );
}

function WebhookAdmin({ org }: { readonly org: OrgSession }) {
  const [load, reload] = useLoad(() => org.api.get<Answer<'get', '/org/v1/webhooks'>>('/org/v1/webhooks').then((l) => l.webhooks));
  return (
    <>
      <AddWebhook org={org} onAdded={reload} />
      <h2>The organization’s webhooks</h2>
      <Loaded load={load}>
        {(webhooks) =>
          webhooks.length === 0 ? (
            <p>No webhook yet.</p>
          ) : (
            <ul className="admin-list">
              {webhooks.map((w) => (
                <WebhookCard key={w.webhookId} org={org} webhook={w} onChanged={reload} />
              ))}
            </ul>
          )
        }
      </Loaded>
    </>
  );
}

function AddWebhook({ org, onAdded }: { readonly org: OrgSession; readonly onAdded: () => Promise<unknown> }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<FeedEventType[]>(['request.accepted', 'record.updated']);
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction(onAdded);
  const toggle = (type: FeedEventType, on: boolean) =>
    setTypes((now) => FEED_EVENT_TYPES.filter((t) => (t === type ? on : now.includes(t))));
  const add = (e: FormEvent) => {
    e.preventDefault();
    setSecret(null);
    void action.run(async () => {
      const made = await org.api.post<CreatedWebhook>('/org/v1/webhooks', { url: url.trim(), eventTypes: types });
      setSecret(made.secret);
      setUrl('');
      return `Added the webhook to ${made.webhook.url}.`;
    });
  };
  return (
    <section className="card" aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">Add a webhook</h2>
      <form onSubmit={add}>
        <label htmlFor="webhook-url">URL the events are sent to (https)</label>
        <input id="webhook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        <fieldset className="admin-choices">
          <legend>Events it is sent</legend>
          {FEED_EVENT_TYPES.map((type) => (
            <div key={type} className="admin-choice">
              <input
                id={`webhook-type-${type}`}
                type="checkbox"
                checked={types.includes(type)}
                onChange={(e) => toggle(type, e.target.checked)}
              />
              <label htmlFor={`webhook-type-${type}`}>
                <code>{type}</code>: {CATALOGUE[type].says}
              </label>
            </div>
          ))}
        </fieldset>
        <Outcome action={action} />
        {secret && (
          <p className="note" aria-live="polite">
            Its signing secret, shown this once: <code>{secret}</code>. Keep it where your receiver checks signatures.
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={action.busy || types.length === 0}>
            Add webhook
          </button>
        </div>
      </form>
    </section>
  );
}

function WebhookCard({
  org,
  webhook,
  onChanged,
}: {
  readonly org: OrgSession;
  readonly webhook: Webhook;
  readonly onChanged: () => Promise<unknown>;
}) {
  const [log, reloadLog] = useLoad(() =>
    org.api
      .get<Answer<'get', '/org/v1/webhooks/{webhookId}/deliveries'>>(hookPath(webhook.webhookId, '/deliveries?limit=50'))
      .then((l) => l.deliveries),
  );
  const action = useAction(reloadLog);
  const removal = useAction(onChanged);
  const test = () =>
    void action.run(async () => {
      await org.api.post(hookPath(webhook.webhookId, '/test'));
      return 'A test event is on its way: Refresh the log to see how it went.';
    });
  const retry = (d: Delivery) =>
    void action.run(async () => {
      await org.api.post(hookPath(webhook.webhookId, `/deliveries/${d.eventId}/retry`));
      return `Sending ${d.eventType} again: Refresh the log to see how it went.`;
    });
  const remove = () =>
    void removal.run(async () => {
      await org.api.del(hookPath(webhook.webhookId));
      return 'Deleted.';
    });
  return (
    <li className="card">
      <h3>
        <code>{webhook.url}</code>
      </h3>
      <p className="meta">
        {webhook.enabled ? 'Enabled' : 'Disabled after 5 days of failed deliveries: add it again once it answers'} · since{' '}
        {day(webhook.createdAt)} · {webhook.eventTypes.join(', ')}
      </p>
      <Outcome action={action} />
      <Outcome action={removal} />
      <div className="actions">
        <button type="button" disabled={action.busy || !webhook.enabled} onClick={test}>
          Send test
        </button>
        <button type="button" className="secondary" onClick={() => void reloadLog()}>
          Refresh the log
        </button>
        <button type="button" className="danger" disabled={removal.busy} onClick={remove}>
          Delete webhook
        </button>
      </div>
      <h4>Delivery log</h4>
      <Loaded load={log}>
        {(deliveries) =>
          deliveries.length === 0 ? (
            <p>Nothing sent yet.</p>
          ) : (
            <div className="table-wrap">
              <table aria-label={`Delivery log of ${webhook.url}`}>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Took</th>
                    <th scope="col">Again</th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((d) => (
                    <tr key={`${d.eventId}-${d.attempt}`}>
                      <td>{when(d.at)}</td>
                      <td>
                        <code>{d.eventType}</code>
                      </td>
                      <td>{d.attempt}</td>
                      <td>{d.status === 'succeeded' ? `Delivered (HTTP ${d.responseStatus})` : `Failed: ${d.error ?? 'no answer'}`}</td>
                      <td>{d.durationMs} ms</td>
                      <td>
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Retry ${d.eventType}, attempt ${d.attempt}`}
                          disabled={action.busy || !webhook.enabled}
                          onClick={() => retry(d)}
                        >
                          Retry
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </li>
  );
}
