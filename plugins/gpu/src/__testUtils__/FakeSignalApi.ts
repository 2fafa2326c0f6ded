import { SignalApi } from '@backstage/plugin-signals-react';
import { act } from '@testing-library/react';

/** A signal's message (JSON). */
type JsonObject = Parameters<Parameters<SignalApi['subscribe']>[1]>[0];

/** The signals plugin's browser API for component tests: `publish` delivers a message to the channel's subscribers. */
export class FakeSignalApi implements SignalApi {
  private readonly subscribers = new Map<
    string,
    Set<(message: JsonObject) => void>
  >();

  subscribe<TMessage extends JsonObject = JsonObject>(
    channel: string,
    onMessage: (message: TMessage) => void,
  ) {
    const listeners = this.subscribers.get(channel) ?? new Set();
    const listener = onMessage as (message: JsonObject) => void;
    listeners.add(listener);
    this.subscribers.set(channel, listeners);
    return { unsubscribe: () => listeners.delete(listener) };
  }

  /** Subscribers of the channel now. */
  subscriberCount(channel: string): number {
    return this.subscribers.get(channel)?.size ?? 0;
  }

  publish(channel: string, message: JsonObject) {
    act(() => {
      for (const listener of this.subscribers.get(channel) ?? []) {
        // A copy per listener, as the real API parses one from the socket.
        listener(JSON.parse(JSON.stringify(message)));
      }
    });
  }
}
