import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const INTRO = `# The gpu tools over MCP

What \`packages/backend/src/mcpActions.test.ts\` sent to the backend's MCP endpoint and what it answered, in order.
Each call is a JSON-RPC request \`POST\`ed to \`/api/mcp-actions/v1\` (Streamable HTTP, stateless) by the MCP SDK's
client, with the caller's Backstage token as \`Authorization: Bearer\` (not shown). In a successful tool result,
\`content[0].text\` holds the same JSON as \`structuredContent\` and is not repeated here.`;

/** Results longer than this are folded (a <details> block). */
const LONG_RESULT_LINES = 80;

const json = (value: unknown) =>
  `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;

/** The JSON-RPC messages of a Streamable HTTP response: a JSON body, or the \`data:\` lines of an event stream. */
function messagesOf(response: {
  contentType: string;
  text: string;
}): unknown[] {
  if (!response.text) return [];
  if (!response.contentType.includes('text/event-stream')) {
    return [JSON.parse(response.text)];
  }
  return response.text
    .split('\n')
    .filter(line => line.startsWith('data: '))
    .map(line => JSON.parse(line.slice('data: '.length)));
}

/** A tool result without the text copy of its structured content. */
function trimmed(message: any): unknown {
  const result = message?.result;
  const content = result?.content;
  if (
    result?.structuredContent === undefined ||
    !Array.isArray(content) ||
    content.length !== 1 ||
    content[0].text !== JSON.stringify(result.structuredContent)
  ) {
    return message;
  }
  return {
    ...message,
    result: {
      ...result,
      content: [{ type: 'text', text: '(structuredContent as JSON text)' }],
    },
  };
}

/** The MCP exchanges of a test as readable Markdown: who called, the request, the result. */
export class McpTranscript {
  private readonly parts: string[] = [INTRO];

  /** A heading for the calls that follow, and what they show. */
  section(title: string, what?: string): void {
    this.parts.push(`## ${title}`, ...(what ? [what] : []));
  }

  exchange(
    caller: string,
    request: { method: string; params?: { name?: string } },
    status: number,
    response: { contentType: string; text: string },
  ): void {
    const tool = request.params?.name ? ` \`${request.params.name}\`` : '';
    this.parts.push(
      `**${caller}**: \`${request.method}\`${tool}`,
      json(request),
    );
    const messages = messagesOf(response);
    for (const message of messages as any[]) {
      const error = message?.result?.isError
        ? message.result.content?.map((c: { text: string }) => c.text).join(' ')
        : undefined;
      const body = json(trimmed(message));
      const lines = body.split('\n').length;
      if (error) {
        this.parts.push(`HTTP ${status}, a tool error: \`${error}\``, body);
      } else if (lines <= LONG_RESULT_LINES) {
        this.parts.push(`HTTP ${status}:`, body);
      } else {
        this.parts.push(
          `<details><summary>HTTP ${status}: the result (${lines} lines)</summary>`,
          `${body}\n\n</details>`,
        );
      }
    }
    if (messages.length === 0) this.parts.push(`HTTP ${status}, no body`);
  }

  write(file: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${this.parts.join('\n\n')}\n`);
  }
}
