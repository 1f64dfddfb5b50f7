/**
 * What each environment variable of the services' `env.ts` schemas means, for docs/configuration.md.
 * The type and default come from the schema itself; `npm run docs` fails when a variable of a
 * schema has no entry here, or an entry names no variable, so the two cannot drift apart.
 */
export const ENV_DESCRIPTIONS: Readonly<Record<string, string>> = {
  // Every service
  NATS_URL: 'NATS server(s), comma-separated; a service moves to another when its server goes away.',
  NATS_PREFIX:
    'Prefix of every subject and stream name, so several deployments (or test runs) can share one NATS.',
  LOG_LEVEL: 'pino log level.',
  SHUTDOWN_TIMEOUT_MS:
    'How long a stopping service may take to finish its in-flight work before it exits anyway.',
  NATS_STREAM_REPLICAS:
    'Copies of the WORK and EVENTS streams and their durable consumers (3 in a three-node JetStream ' +
    'cluster). A stream made with another number is changed in place; give the migrate job and every ' +
    'service the same number.',
  NATS_STREAM_STORAGE: 'Where the streams keep their messages. A stream keeps the storage it was made with.',
  NATS_STREAM_MAX_AGE_MS:
    'How long WORK and EVENTS each keep a message (0: no limit, else at least a minute); unset: EVENTS a ' +
    'week, WORK no limit.',
  NATS_STREAM_MAX_BYTES:
    'Most bytes WORK and EVENTS each keep: a full WORK refuses new queries, a full EVENTS drops its ' +
    'oldest events; unset: no limit.',
  NATS_CREDS_FILE: 'A JWT `.creds` file to log in to NATS with (decentralised auth).',
  NATS_NKEY_SEED_FILE: 'A file holding an nkey seed to log in to NATS with.',
  NATS_USER: 'NATS user name (with NATS_PASSWORD).',
  NATS_PASSWORD: 'NATS password (with NATS_USER); never logged.',
  NATS_TOKEN: 'NATS token to log in with; never logged.',
  NATS_TLS_CA_FILE:
    "The CA certificate(s) the NATS server's certificate is checked against; makes TLS required.",
  NATS_TLS_CERT_FILE:
    'Client certificate, for a NATS server that verifies clients (with NATS_TLS_KEY_FILE); makes TLS required.',
  NATS_TLS_KEY_FILE: 'The key of NATS_TLS_CERT_FILE.',
  DB_PREPARED_STATEMENTS:
    'Whether statements with parameters run as prepared (named) statements, which PostgreSQL parses and ' +
    'plans once per connection (at most 200 per connection; long or numerous texts run unnamed). `off` ' +
    'behind a pooler that does not keep them, such as PgBouncer in transaction mode before 1.21. Services ' +
    'without a database ignore it.',

  // Shared by several services
  DATABASE_URL:
    "PostgreSQL, as this service's own role (see [operations.md](operations.md#upgrades-and-migrations)).",
  OPENAI_BASE_URL: 'Any OpenAI-compatible chat-completions endpoint.',
  OPENAI_API_KEY: 'API key of OPENAI_BASE_URL; never logged.',
  LLM_MODEL: 'Model name at OPENAI_BASE_URL (the deployment name with Azure).',
  TOOLS_CACHE_MS: 'How long the tool list fetched from the MCP executor is reused.',
  TOOLS_REQUEST_TIMEOUT_MS: 'Bound on a tool-list request to the MCP executor.',
  LLM_ENDPOINT_ALLOWLIST:
    'Hosts, addresses and CIDR ranges that saved model endpoints may use although they are not public ' +
    '(loopback, private, link-local …); give the gateway and the agent the same.',

  // Attachments (gateway and agent)
  ATTACHMENTS_DIR: 'Where uploaded files are kept when no ATTACHMENTS_S3_BUCKET is set.',
  ATTACHMENTS_MAX_BYTES: 'Largest upload, in bytes.',
  ATTACHMENTS_SIGNING_KEY:
    'HMAC key of local download links (at least 32 characters); give every gateway the same. Unset: a ' +
    'random key per process, so links work only until it restarts.',
  ATTACHMENTS_S3_BUCKET: 'An S3 or S3-compatible bucket; set, attachments are kept there instead of on disk.',
  ATTACHMENTS_S3_ENDPOINT: "The store's URL for S3-compatible stores (MinIO); unset: AWS S3.",
  ATTACHMENTS_S3_PUBLIC_ENDPOINT:
    "The store's URL as browsers reach it, when not ATTACHMENTS_S3_ENDPOINT; download links are signed for it.",
  ATTACHMENTS_S3_REGION: "The bucket's region.",
  ATTACHMENTS_S3_ACCESS_KEY_ID:
    "Access key of the bucket (with the secret); unset: the AWS SDK's default credential chain.",
  ATTACHMENTS_S3_SECRET_ACCESS_KEY: 'Secret of ATTACHMENTS_S3_ACCESS_KEY_ID; never logged.',
  ATTACHMENTS_S3_FORCE_PATH_STYLE: 'Path-style bucket URLs; unset: on when an endpoint is set, off for AWS.',
  ATTACHMENTS_S3_PREFIX: 'Key prefix inside the bucket.',
  ATTACHMENTS_EXTRACT_TIMEOUT_MS: "Longest a file's text extraction may take.",
  ATTACHMENTS_EXTRACT_MAX_CHARS: 'Characters of extracted text kept per file.',
  ATTACHMENTS_EXTRACT_CONCURRENCY: 'Files read at once per process, each in its own worker thread.',
  ATTACHMENTS_EXTRACT_QUEUE_MS:
    'Longest an upload waits for a free reader; then it is refused with 503 and `Retry-After`.',
  ATTACHMENTS_MAX_UNCOMPRESSED_BYTES:
    'Largest total a zip-based file (XLSX, DOCX) may expand to; a larger one is refused with 413 before any parser reads it.',
  ATTACHMENTS_MAX_ZIP_RATIO:
    'Largest expanded-to-compressed ratio of one entry (of 1 MB or more) of a zip-based file.',
  ATTACHMENTS_MAX_ZIP_ENTRIES: 'Most entries a zip-based file may hold.',

  // Quotas (gateway and agent)
  QUOTA_QUERIES_PER_WINDOW:
    'Queries one tenant (entity + org) may make per window, counted in PostgreSQL; unset: no limit. ' +
    'Needs DATABASE_URL.',
  QUOTA_TOKENS_PER_WINDOW:
    'Model tokens one tenant may spend per window; unset: no limit. Each model call reserves its most ' +
    'tokens first, so the quota must hold at least one call.',
  QUOTA_WINDOW_MS: 'Length of a quota window, aligned to the epoch; give every gateway and agent the same.',
  QUOTA_STORE_UNREACHABLE:
    'What happens while quotas are set but the usage table cannot be reached: `refuse` turns queries and ' +
    'model calls away (an outage is never a way past a quota), `admit` lets them through uncounted.',

  // Gateway
  PORT: 'Port of the HTTP API.',
  HOST:
    'Bind address. Any address but loopback needs credentials (GATEWAY_API_KEYS, admin keys or JWT ' +
    'settings), else the gateway refuses to start.',
  GATEWAY_ALLOW_UNAUTHENTICATED:
    'Serve a non-loopback HOST without any credential anyway (logged as a warning).',
  GATEWAY_ALLOWED_HOSTS:
    'Without auth: the `Host` names, besides loopback ones and HOST, that browsers may use; any other is ' +
    'refused (against DNS rebinding).',
  GATEWAY_API_KEYS:
    'Comma-separated `key:entityId:orgId[:userId[:role+role…]]` entries, keys of at least 24 characters. ' +
    'Set, every request needs `Authorization: Bearer <key>` and acts only for that tenant, as that user with ' +
    'those roles (viewer, maker, approver, admin, owner, automation; a user named without roles is a viewer, ' +
    'a key without a user is the tenant’s owner). Unset: no auth, loopback only.',
  AUTH_FAILURE_MAX:
    'Wrong keys or tokens one address may send per AUTH_FAILURE_WINDOW_MS before it is locked out.',
  AUTH_FAILURE_WINDOW_MS:
    'A locked-out address gets 429 for every request, valid keys included, until this window ends.',
  TRUST_PROXY_HOPS:
    'Proxies in front of the gateway that append to `X-Forwarded-For`: lockouts and rate limits key a caller ' +
    'by the address the outermost of them appended. 0: the socket address; the header is ignored.',
  BODY_LIMIT_BYTES: 'Largest accepted JSON request body.',
  MAX_URL_LENGTH: 'Longest accepted request URL (path and query string); a longer one gets 414.',
  STREAM_TIMEOUT_MS:
    'Longest an SSE stream (or an MCP tool call) waits for `complete` or `error` before ending with TIMEOUT.',
  REQUEST_TIMEOUT_MS: "Bound on the gateway's own bus requests (health pings).",
  SSE_HEARTBEAT_MS: 'Interval of the SSE comment that keeps idle proxies from closing a stream.',
  STREAM_IDLE_TIMEOUT_MS:
    'A stream that gets no event for this long ends with TIMEOUT (heartbeats do not count).',
  MAX_STREAMS_PER_KEY: 'Open SSE streams (and MCP tool calls) one key, token or address may hold at once.',
  MAX_STREAMS_TOTAL: 'Open SSE streams (and MCP tool calls) one gateway holds at once.',
  RATE_LIMIT_MAX:
    'Requests one key, token or address may make per RATE_LIMIT_WINDOW_MS under `/v1` and `/mcp`.',
  RATE_LIMIT_WINDOW_MS: 'The window of RATE_LIMIT_MAX.',
  CORS_ORIGINS: 'Browser origins allowed by CORS (comma-separated, `*` for any); unset: no CORS headers.',
  GATEWAY_JWT_SECRET:
    'HS256 secret of bearer JWTs (at least 32 characters); unset: HS256 tokens are refused.',
  GATEWAY_JWKS_URL:
    "JWKS URL of the token issuer's public keys (https; http only to a loopback host); unset: asymmetric tokens are refused.",
  GATEWAY_JWT_ISSUER: 'The `iss` a token must carry, when set.',
  GATEWAY_JWT_AUDIENCE: 'The `aud` a token must carry; required with GATEWAY_JWKS_URL.',
  GATEWAY_JWT_ENTITY_CLAIM: 'The JWT claim naming the entity a token may act for.',
  GATEWAY_JWT_ORG_CLAIM: 'The JWT claim naming the organisation a token may act for.',
  GATEWAY_JWT_ROLES_CLAIM:
    "The JWT claim naming the person's roles for the entity (`viewer`, `maker`, `approver`, `admin`, `owner`, " +
    '`automation`), as an array or a space- or comma-separated string; other names are ignored, and a token ' +
    "naming none only reads (viewer). The token's `sub` is the user.",
  GATEWAY_ADMIN_KEYS:
    'Comma-separated admin keys (at least 24 characters each) for `/v1/admin/*`; unset: admin endpoints answer 403 ' +
    '(unless a JWT carries the admin role).',
  GATEWAY_JWT_ADMIN_ROLE: "The role, in a token's `roles` array or `role` claim, that grants admin access.",
  STT_BASE_URL: 'OpenAI-compatible `/audio/transcriptions` endpoint for voice; unset: OPENAI_BASE_URL.',
  STT_API_KEY: 'API key of STT_BASE_URL; unset: OPENAI_API_KEY.',
  STT_MODEL: 'Speech-to-text model.',
  STT_MAX_BYTES: 'Largest audio upload, in bytes.',
  LLM_CONFIG_KEY:
    'AES-256 key (32 bytes as hex or base64) that encrypts the API keys of model configurations saved ' +
    'through the admin API; give the gateway, the agent and the migrate job the same. Unset: such keys are refused.',

  // Router
  FAST_PATH_THRESHOLD: 'Intent confidence at or above which a query takes the fast path (no model call).',
  INTENTS_REFRESH_MS: 'How often the intents are reloaded, besides the notice an admin change sends.',
  TOOL_STRATEGY: 'How tools are picked for the model; `dynamic` picks a strategy per query.',
  ROUTER_CONCURRENCY: 'Queries one router instance routes at once.',
  ROUTER_ACK_WAIT_MS:
    'How long a submitted query may go unacknowledged before another router instance takes it over: how ' +
    "soon a dead instance's queries are routed.",
  RESPONSE_CACHE: 'The response cache of read answers.',
  CACHE_TTL_VOLATILE_MS: 'Cache lifetime of answers about lists and balances.',
  CACHE_TTL_REPORT_MS: 'Cache lifetime of report answers.',
  CACHE_TTL_STATIC_MS: 'Cache lifetime of static lookups.',
  ROUTE_MAX_AGE_MS:
    'A routing decision whose request has not ended after this long is dropped without learning from it.',

  // Agent
  CONFIRM_TIERS:
    "Removed: only the value `1,2,3` is accepted. To run a write without confirmation, give it tier 0 in the executor's TOOL_POLICY_FILE.",
  CONFIRM_TTL_MS: 'How long a proposed write waits for its confirmation.',
  APPROVAL_TTL_MS:
    'How long a write its maker confirmed waits for the approvers the policy names; then it expires, and the audit trail says so.',
  APPROVAL_POLICY_FILE:
    'Who must approve which writes (JSON or YAML): rules by class (payment, transfer, document, journal, ' +
    'party, edit, destructive, send, any) or tool glob, from an amount, for a party, each naming how many ' +
    'people other than the maker approve and of which roles; and per role the most it may confirm alone ' +
    'or approve (`limits: { maker: { maxAmount: 50000 } }`), in the business’s currency. An org’s own ' +
    'policy, set through the admin API, takes its place for that org. Read at start: a bad file stops the ' +
    'service naming the entry. Give the gateway and the agent the same file. Unset: the person who asked ' +
    'confirms every write.',
  HISTORY_MESSAGES: 'Past messages of the conversation given to the model.',
  LLM_API_STYLE:
    "`azure` for Azure OpenAI's deployments API (`api-key` header; LLM_MODEL is the deployment).",
  AZURE_OPENAI_API_VERSION: 'The `api-version` sent with LLM_API_STYLE=azure.',
  LLM_SYSTEM_ROLE: "Role of the instructions message; Azure OpenAI's reasoning models want `developer`.",
  LLM_MAX_RETRIES:
    'Retries of a failed model call in the client (429 and 5xx, with backoff). With fallbacks, only the last configuration retries: the others fail over at once.',
  LLM_PROVIDER: 'Shown in `complete.llmModel` as `<provider>/<model>`.',
  LLM_TIMEOUT_MS: 'Bound on one model call.',
  LLM_CHUNK_TIMEOUT_MS:
    'The longest a model endpoint may send nothing (until its first byte, then between chunks) before the ' +
    'call is given up and moves to the next model configuration; `0`: no such bound. ' +
    'See [operations.md](operations.md#model-failover).',
  LLM_BREAKER_FAILURES:
    'Failed calls in a row after which a model endpoint is skipped (its circuit opens) while another configuration can answer.',
  LLM_BREAKER_COOLDOWN_MS: 'How long an open circuit skips its model endpoint before one probe call may go.',
  LLM_MAX_TOKENS_CHEAP: '`max_tokens` of a model call on the cheap tier.',
  LLM_MAX_TOKENS_CAPABLE: '`max_tokens` of a model call on the capable tier.',
  LLM_MAX_TOKENS_CHAT: '`max_tokens` of a small-talk answer.',
  MAX_ITERATIONS: 'Most model turns of one tool-calling loop.',
  MAX_WRITE_RETRIES: 'Blocked retries of one write before the agent asks the user for what is missing.',
  VALIDATE_TIMEOUT_MS: 'Bound on a validate request to the validator.',
  EXECUTE_TIMEOUT_MS:
    "Bound on an execute request to the MCP executor; longer than the executor's write timeout plus its idempotency grace.",
  AGENT_CONCURRENCY: 'Queries one agent instance works on at once.',
  AGENT_ACK_WAIT_MS:
    'How long a query may go unacknowledged before another agent instance takes it over: how soon a dead ' +
    "instance's work, a confirmed write included, resumes (exactly once).",
  PERSONA_NAME: 'The name the assistant goes by.',
  PRODUCT_NAME: 'How the assistant names the accounting product.',
  LLM_VISION: 'Images attached to a query go to the model: `on`, `off`, or `auto` by the model name.',
  LLM_ATTACHMENT_MAX_CHARS: 'Characters of attachment text given to the model per query.',

  // Validator
  VALIDATOR_TOOLS_TTL_MS: 'How long the tool registry fetched from the MCP executor is reused.',
  TOOL_COLLAPSE:
    'Offer each tool group to the model as one container function: `always`, `never`, or `auto` (above TOOL_COLLAPSE_THRESHOLD tools).',
  TOOL_COLLAPSE_THRESHOLD: 'Tool count above which `auto` collapses tool groups into containers.',
  JSON_CORRECTION_TIMEOUT_MS: 'Bound on one model call that corrects malformed JSON.',
  JSON_CORRECTION_MAX_TOKENS: '`max_tokens` of one model call that corrects malformed JSON.',

  // MCP executor
  MCP_SERVER_URL: "The accounting MCP server's Streamable HTTP endpoint; required unless MCP_SERVERS is set.",
  MCP_SERVERS:
    'Several MCP servers: a JSON list, or comma-separated http(s) URLs and `stdio:<command>` entries; ' +
    'takes precedence over MCP_SERVER_URL. See [mcp-servers.md](mcp-servers.md).',
  TOOL_POLICY_FILE:
    'The tool policy (JSON or YAML): trusted servers, and per tool read or write, confirmation tier and ' +
    'extra write rules. A bad file stops the executor. See [mcp-servers.md](mcp-servers.md).',
  MCP_AUTH_TOKEN: 'Bearer token sent to MCP_SERVER_URL; never logged.',
  MCP_READ_TIMEOUT_MS: 'Bound on one read tool call.',
  MCP_WRITE_TIMEOUT_MS: 'Bound on one write tool call.',
  TOOL_RESULT_MAX_CHARS: 'A result whose JSON is longer is truncated, keeping its item count.',
  IDEMPOTENCY_TTL_MS:
    'How long the stored result of a write is kept, so a retried call returns it instead of writing again.',
  IDEMPOTENCY_GRACE_MS: "Margin past a write's timeout before other instances presume its sender gone.",

  // Logger
  LOGGER_CONCURRENCY: 'Batches one logger instance writes at once.',
  LOGGER_BATCH_SIZE: 'Most events written in one transaction.',
  LOGGER_LINGER_MS:
    'How long a batch that is not full waits for more events (fewer transactions under load).',
  LOGGER_ACK_WAIT_MS:
    'How long events handed to an instance that went away wait before another instance gets them.',
  EVENTS_RETENTION_DAYS: 'Days `request_events` rows are kept; 0 keeps them all.',
  LOGGER_LEARN_INTERVAL_MS:
    'How often feedback not yet learnt (thumbs up or down) is applied to the routing statistics.',

  // Messaging (WhatsApp; see whatsapp.md)
  MESSAGING_PORT: 'Port of the WhatsApp webhook and of its own `GET /healthz` and `GET /readyz`.',
  MESSAGING_HOST:
    'Bind address. Deliveries are authenticated by their signature; behind a reverse proxy or an ingress, `0.0.0.0`.',
  WHATSAPP_APP_SECRET:
    "The Meta app's secret, which signs every delivery (`X-Hub-Signature-256`); a delivery signed otherwise " +
    'gets 401. One of the four settings that switch WhatsApp on (all four, or none); never logged.',
  WHATSAPP_VERIFY_TOKEN:
    "Any string of 8 or more characters, typed into the app's webhook settings too: Meta echoes it in the " +
    'verification handshake, and a wrong one gets 403.',
  WHATSAPP_ACCESS_TOKEN: "A system user's permanent access token for the Cloud API; never logged.",
  WHATSAPP_PHONE_NUMBER_ID: "Meta's id of the business number (WhatsApp → API Setup), not the number itself.",
  WHATSAPP_GRAPH_URL: 'Base URL of the Graph API (a proxy in between, say).',
  WHATSAPP_API_VERSION: 'Graph API version of the calls.',
  WHATSAPP_TEMPLATE_NAME:
    "An approved message template sent instead when a person's 24-hour window is closed (an approval card " +
    'to an approver who has not written today); unset: nothing is sent then, and it is logged.',
  WHATSAPP_TEMPLATE_LANGUAGE: 'Language code of WHATSAPP_TEMPLATE_NAME.',
  MESSAGING_ANSWER_TIMEOUT_MS:
    'Longest a question from WhatsApp may take before the person is told no answer came in time (the ' +
    'request may still finish).',
  MESSAGING_CONCURRENCY: 'Messages one messaging instance handles at once.',
};

/** Where a variable means something else in one service than in the table above. */
export const SERVICE_ENV_DESCRIPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  gateway: {
    DATABASE_URL:
      "PostgreSQL, as the gateway's own role; unset: conversations, feedback, attachments, quotas and admin endpoints answer 503.",
    OPENAI_BASE_URL: 'OpenAI-compatible endpoint the admin side drafts intents with, and the speech default.',
  },
  validator: {
    OPENAI_BASE_URL:
      'OpenAI-compatible endpoint used to correct JSON the repair library cannot; unset: that step is skipped.',
  },
  'mcp-executor': {
    DATABASE_URL:
      "PostgreSQL, as the executor's own role: the tool registry, pins, approvals and idempotency of writes.",
  },
  messaging: {
    DATABASE_URL:
      "PostgreSQL, as messaging's own role: who a phone number is, conversations, the delivery log, cards; " +
      'required when WhatsApp is on.',
    OPENAI_BASE_URL: 'The speech default: voice notes are transcribed here unless STT_BASE_URL is set.',
    STT_MAX_BYTES: 'Longest voice note, in bytes; a longer one is declined.',
    ATTACHMENTS_MAX_BYTES:
      'Largest document or photo taken from a phone, in bytes; a larger one is declined.',
  },
};
