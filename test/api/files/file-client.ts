/** Raw-byte calls of contract §6, as a client makes them (the JSON test client cannot carry bytes). */
export type FileReply = { status: number; headers: Headers; bytes: Buffer; json: Record<string, unknown> };

export type UploadBytes = Uint8Array | ReadableStream<Uint8Array>;

export function fileClient(baseUrl: string) {
  const call = async (
    method: string,
    path: string,
    token: string | undefined,
    body?: UploadBytes,
    contentType?: string,
  ): Promise<FileReply> => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (contentType) headers['content-type'] = contentType;
    // A stream goes chunked, without Content-Length; fetch needs half duplex for it.
    const init = { method, headers, ...(body === undefined ? {} : { body, duplex: 'half' }) } as RequestInit;
    const res = await fetch(`${baseUrl}${path}`, init);
    const bytes = Buffer.from(await res.arrayBuffer());
    const json = res.headers.get('content-type')?.includes('json') ? (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>) : {};
    return { status: res.status, headers: res.headers, bytes, json };
  };
  const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
  return {
    upload: (token: string | undefined, params: Record<string, string>, body: UploadBytes, contentType = 'application/octet-stream') =>
      call('POST', `/vault/files?${query(params)}`, token, body, contentType),
    addVersion: (
      token: string | undefined,
      fileId: string,
      params: Record<string, string>,
      body: UploadBytes,
      contentType = 'application/octet-stream',
    ) => call('POST', `/vault/files/${encodeURIComponent(fileId)}/versions?${query(params)}`, token, body, contentType),
    download: (token: string | undefined, fileId: string, version?: number | string) =>
      call('GET', `/vault/files/${encodeURIComponent(fileId)}${version === undefined ? '' : `?version=${version}`}`, token),
  };
}

/** A chunked body of `total` bytes handed out as the server reads; `pulled()` says how far it got. */
export function chunkedBody(total: number, chunk = 16 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x5a));
    },
  });
  return { stream, pulled: () => sent };
}
