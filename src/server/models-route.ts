/**
 * `GET /v1/models` and `GET /v1/models/{model}` (docs/spec.md §13.1a), OpenAI's model list: chat front
 * ends ask for it before anything else, to fill their model picker. There is one model, `homeagent`
 * — the agent, whichever providers it runs on; the name a chat completion request gives is ignored.
 */
import type { ServerResponse } from 'node:http';
import { CHAT_MODEL_DEFAULT } from './chat-completions.ts';
import { sendError, sendJson } from './http-io.ts';

export const MODELS_PATH = '/v1/models';

export interface ModelObject {
  readonly id: string;
  readonly object: 'model';
  /** Seconds since the epoch: when this server started. */
  readonly created: number;
  readonly owned_by: string;
}

export function modelObject(startedAtMs: number): ModelObject {
  return { id: CHAT_MODEL_DEFAULT, object: 'model', created: Math.floor(startedAtMs / 1000), owned_by: 'homeagent' };
}

/** Answers `/v1/models` (the list) or `/v1/models/<id>` (one model, or 404). */
export function getModels(res: ServerResponse, path: string, model: ModelObject): void {
  if (path === MODELS_PATH) {
    sendJson(res, 200, { object: 'list', data: [model] });
    return;
  }
  const id = path.slice(MODELS_PATH.length + 1);
  if (id === model.id) sendJson(res, 200, model);
  else sendError(res, 404, `no model ${JSON.stringify(id)}; the one model is ${JSON.stringify(model.id)}`, 'model');
}
