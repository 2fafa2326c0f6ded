import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import {
  getGiteaRequestOptions,
  GiteaIntegrationConfig,
} from '@backstage/integration';
import { createHash } from 'node:crypto';

/** One file of a proposed change, as Gitea's "change files" API takes it. */
interface FileChange {
  operation: 'create' | 'update' | 'delete';
  path: string;
  content?: string;
  sha?: string;
}

/** What a proposal did to the directory: paths relative to the repository root. */
export interface DirectoryChanges {
  created: string[];
  updated: string[];
  deleted: string[];
}

/** A pull request opened by {@link GiteaPullRequests.proposeDirectory}. */
export interface OpenedPullRequest {
  number: number;
  url: string;
  branch: string;
  base: string;
  changes: DirectoryChanges;
}

interface TreeEntry {
  path: string;
  type: string;
  sha: string;
}

/** Git's object id of a blob holding `content`: what a tree lists, so unchanged files are left out. */
function blobSha(content: Buffer): string {
  return createHash('sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}

/**
 * Pull requests into an existing repository of a Gitea server, through its REST API (`/api/v1`), with the credentials
 * of the host's `integrations.gitea` entry. Backstage's `publish:gitea` creates repositories; nothing in Backstage
 * proposes a change to an existing one, which a GitOps repository needs: this does, for one directory at a time, in
 * one commit on a new branch (files added, changed or removed so the directory holds exactly the given files).
 */
export class GiteaPullRequests {
  private readonly apiBase: string;

  constructor(
    private readonly integration: GiteaIntegrationConfig,
    private readonly owner: string,
    private readonly repo: string,
  ) {
    const base = (integration.baseUrl ?? `https://${integration.host}`).replace(
      /\/+$/,
      '',
    );
    this.apiBase = `${base}/api/v1/repos/${encodeURIComponent(
      owner,
    )}/${encodeURIComponent(repo)}`;
  }

  /**
   * Opens a pull request from a new branch `branch` off the default branch whose one commit makes `directory` hold
   * exactly `files` (paths relative to the directory; none: the directory is removed). Refuses with an InputError
   * when that changes nothing, and with a ConflictError when the branch exists already.
   */
  async proposeDirectory(options: {
    directory: string;
    files: Record<string, Buffer>;
    branch: string;
    title: string;
    body: string;
    commitMessage: string;
  }): Promise<OpenedPullRequest> {
    const directory = options.directory.replace(/^\/+|\/+$/g, '');
    if (!directory || directory.split('/').includes('..')) {
      throw new InputError(
        `The target directory must be a path inside the repository; got '${options.directory}'`,
      );
    }
    const repository = await this.call<{ default_branch: string }>('GET', '');
    const base = repository.default_branch;
    const existing = await this.filesUnder(base, directory);
    const changes: FileChange[] = [];
    const summary: DirectoryChanges = { created: [], updated: [], deleted: [] };
    for (const [relative, content] of Object.entries(options.files).sort()) {
      const path = `${directory}/${relative}`;
      const current = existing.get(path);
      if (current === blobSha(content)) continue;
      changes.push({
        operation: current ? 'update' : 'create',
        path,
        content: content.toString('base64'),
        ...(current && { sha: current }),
      });
      (current ? summary.updated : summary.created).push(path);
    }
    for (const [path, sha] of existing) {
      if (options.files[path.slice(directory.length + 1)] === undefined) {
        changes.push({ operation: 'delete', path, sha });
        summary.deleted.push(path);
      }
    }
    if (changes.length === 0) {
      throw new InputError(
        `${this.owner}/${this.repo} already holds exactly these files under ${directory}/ on ${base}: nothing to propose`,
      );
    }
    if (await this.branchExists(options.branch)) {
      throw new ConflictError(
        `Branch ${options.branch} exists in ${this.owner}/${this.repo}; merge or close its pull request and delete it first`,
      );
    }
    await this.call('POST', '/contents', {
      branch: base,
      new_branch: options.branch,
      message: options.commitMessage,
      files: changes,
    });
    const pull = await this.call<{ number: number; html_url: string }>(
      'POST',
      '/pulls',
      {
        head: options.branch,
        base,
        title: options.title,
        body: options.body,
      },
    );
    return {
      number: pull.number,
      url: pull.html_url,
      branch: options.branch,
      base,
      changes: summary,
    };
  }

  /** Blob object ids by path of the files under `directory` on `ref` (empty when there is no such directory). */
  private async filesUnder(
    ref: string,
    directory: string,
  ): Promise<Map<string, string>> {
    const files = new Map<string, string>();
    for (let page = 1; ; page++) {
      const tree = await this.call<{
        tree: TreeEntry[];
        truncated: boolean;
        total_count: number;
      }>(
        'GET',
        `/git/trees/${encodeURIComponent(
          ref,
        )}?recursive=true&per_page=1000&page=${page}`,
      );
      for (const entry of tree.tree) {
        if (entry.type === 'blob' && entry.path.startsWith(`${directory}/`)) {
          files.set(entry.path, entry.sha);
        }
      }
      if (!tree.truncated || tree.tree.length === 0) return files;
    }
  }

  private async branchExists(branch: string): Promise<boolean> {
    try {
      await this.call('GET', `/branches/${encodeURIComponent(branch)}`);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  private async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<T> {
    const url = `${this.apiBase}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        ...getGiteaRequestOptions(this.integration).headers,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status === 404) {
      throw new NotFoundError(
        `Gitea answered 404 to ${method} ${url}${text ? `: ${text}` : ''}`,
      );
    }
    if (!response.ok) {
      throw new Error(
        `Gitea answered ${response.status} to ${method} ${url}: ${text}`,
      );
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
