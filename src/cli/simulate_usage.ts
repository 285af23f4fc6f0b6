/** `tablesync simulate --help`: its own file so the CLI can list the command without loading the simulator. */
export const SIMULATE_USAGE = `Usage: tablesync simulate [options]

Runs a simulated instance table REST API (for tests, demos and benchmarks).

Options:
  --port N                 TCP port (default 8089; 0 picks a free port)
  --host H                 interface to bind (default 127.0.0.1)
  --seed T=N[,T=N...]      rows to generate per table, e.g. incident=100000,problem=500
  --user U:P               basic-auth user (repeatable; default admin:admin)
  --oauth-client ID:SECRET OAuth client for /oauth_token.do (repeatable)
  --latency-ms N           latency added to every request (default 0)
  --writer-rate N          background writer: N inserts/updates of incident per second (default off)
  --writer-silent P        P % of the writer's updates leave sys_updated_on and sys_mod_count as they were
  --random-seed N          seed of generated data and faults (default 1)
  --acl-hide P             access control hides P % of every table's rows after the limit (counted in counts)
  --proxy-date             a proxy's own Date is appended to every response's Date header (comma-joined)
  --rate-limit N[/S]       rate-limit rule: N requests per user per S seconds (default S 3600); X-RateLimit-*
                           headers on every response, 429 beyond the budget
  --rate-limit-commit-ms N each node commits its counts every N ms (default 30000): 429s come in bursts
  --rate-limit-committed-only  a node checks only the committed counts (one node overshoots too)
  --rate-limit-shared N    another integration spends N of each window's budget as the window starts
  --rate-limit-shared-rate R   … and R requests per second (decimal)
  --sessions               sessions: cookie-less requests open one (Set-Cookie), a session's requests run one
                           at a time, past 10 waiting ones the answer is 202 (empty, not run)
  --session-max-waiters N  requests that may wait for a busy session (default 10; implies --sessions)
  --nodes N                nodes behind the load balancer (default 1), each with its own sessions
  --threads N              API_INT semaphore: N threads per node (default 4 once any semaphore flag is given)
  --queue N                requests that may wait for a thread, per node (default 50); one more gets a bare 429
  --other-client-threads N another client's work holds N threads of each node (default 0)
  --quota-ms N             transaction quota: a request running N ms is cancelled (200 with a cut body; 500
                           if it never left the semaphore queue)
  --quota-shape S          cut_record (inside a record, the default) or complete_rows (valid JSON, partial)
  --tls-cert F --tls-key F serve HTTPS with this PEM certificate and key
  --tls-client-ca F        require client certificates signed by this PEM CA (mTLS)
  --help                   show this help
`;
