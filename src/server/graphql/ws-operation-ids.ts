/**
 * One operation per graphql-transport-ws id at any time.
 *
 * graphql-ws forgets an id as soon as the client sends `complete` for it, even while that
 * operation is still starting (its `onSubscribe` or `subscribe` still awaiting). A `subscribe`
 * reusing the id then starts a second operation under it, and the first one, once started,
 * streams under it too: every event twice, `next` for the id after the client completed it, and
 * one stream that no `complete` reaches, left waiting on the change feed.
 *
 * {@link OperationIdGate} sits between the socket and graphql-ws: a `subscribe` for an id whose
 * previous operation the client completed is held until that operation's handler has returned
 * (graphql-ws then has forgotten it for good), and every later message for that id waits
 * behind it, in arrival order. Everything else passes at once. A `subscribe` for an id that is
 * still active (not completed) is passed on: graphql-ws closes the socket with 4409, as the
 * protocol requires.
 */

/** The `type` and `id` of a client message that names an operation. */
interface OperationMessage {
  type: 'subscribe' | 'complete';
  id: string;
}

/** An operation graphql-ws is handling, from its `subscribe` until its handler returned. */
interface RunningOperation {
  /** Settles once graphql-ws's handler of the `subscribe` message returned (or threw). */
  done: Promise<void>;
  /** The client sent `complete` for it. */
  completed: boolean;
}

/**
 * The `subscribe` / `complete` messages' type and id, or undefined for anything else
 * (including text that is not JSON: graphql-ws answers that itself).
 */
function operationMessageOf(data: string): OperationMessage | undefined {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, id } = message as { type?: unknown; id?: unknown };
  if ((type !== 'subscribe' && type !== 'complete') || typeof id !== 'string') return undefined;
  return { type, id };
}

/**
 * Orders the messages of one socket per operation id (see the module comment). One gate per
 * socket.
 */
export class OperationIdGate {
  private readonly running = new Map<string, RunningOperation>();
  /** Per id, the last held message: settles once it was handed to graphql-ws. */
  private readonly held = new Map<string, Promise<void>>();

  /**
   * @param deliver hands one message to graphql-ws and returns its handler's promise (for a
   *   `subscribe`, that settles when the operation ended); it must not reject (the caller
   *   handles the handler's errors)
   * @param isOpen whether the socket is still open (held messages of a closed socket are dropped)
   */
  constructor(
    private readonly deliver: (data: string) => Promise<void>,
    private readonly isOpen: () => boolean,
  ) {}

  /** Number of ids with a message held back (for tests). */
  get heldCount(): number {
    return this.held.size;
  }

  /** Receives one text message from the socket, in arrival order. */
  receive(data: string): void {
    const message = operationMessageOf(data);
    if (message === undefined) {
      void this.deliver(data);
      return;
    }
    const before = this.held.get(message.id);
    if (before === undefined && this.mayPass(message)) {
      this.pass(message, data);
      return;
    }
    const next = (before ?? Promise.resolve()).then(() => this.passWhenFree(message, data));
    this.held.set(message.id, next);
    void next.then(() => {
      if (this.held.get(message.id) === next) this.held.delete(message.id);
    });
  }

  /** False for a `subscribe` whose id still names an operation the client completed. */
  private mayPass(message: OperationMessage): boolean {
    return message.type !== 'subscribe' || this.running.get(message.id)?.completed !== true;
  }

  private async passWhenFree(message: OperationMessage, data: string): Promise<void> {
    for (;;) {
      if (!this.isOpen()) return;
      if (this.mayPass(message)) break;
      await (this.running.get(message.id) as RunningOperation).done;
    }
    this.pass(message, data);
  }

  private pass(message: OperationMessage, data: string): void {
    if (message.type === 'complete') {
      const operation = this.running.get(message.id);
      if (operation !== undefined) operation.completed = true;
      void this.deliver(data);
      return;
    }
    const operation: RunningOperation = { done: this.deliver(data), completed: false };
    this.running.set(message.id, operation);
    void operation.done.then(() => {
      if (this.running.get(message.id) === operation) this.running.delete(message.id);
    });
  }
}
