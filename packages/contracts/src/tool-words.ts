/**
 * The words tool names and descriptions are read with: read verbs, verbs that only
 * ever name a change, words that are a change verb and also a noun of the books, nouns, and the
 * conjunctions that join a second action to a name.
 */

/** Verbs that only read. A tool is a read by its name only when its verb is one of these. */
export const READ_VERBS: ReadonlySet<string> = new Set([
  'get',
  'list',
  'search',
  'find',
  'query',
  'fetch',
  'read',
  'show',
  'view',
  'describe',
  'count',
  'lookup',
  'retrieve',
  'browse',
  'inspect',
  'preview',
  'download',
]);

/** Verbs whose write cannot simply be taken back: typed confirmation (tier 3). */
export const DESTRUCTIVE_VERBS: ReadonlySet<string> = new Set([
  'delete',
  'void',
  'remove',
  'cancel',
  'revert',
  'reverse',
  'writeoff',
  'close',
  'archive',
  'purge',
  'erase',
  'destroy',
  'drop',
  'terminate',
  'deactivate',
  'disable',
  'reject',
  'unpost',
  'unapply',
  'unreconcile',
  'reset',
  'wipe',
  'discard',
  'merge',
  'lock',
  'truncate',
  'revoke',
  'unlink',
  'overwrite',
  'settle',
  // Approving a bill posts it; filing a return cannot be recalled.
  'approve',
  'file',
]);

/** Verbs that change an existing record: a summary of what changes (tier 2). */
export const EDIT_VERBS: ReadonlySet<string> = new Set([
  'update',
  'edit',
  'modify',
  'change',
  'amend',
  'patch',
  'set',
  'rename',
  'replace',
  'upsert',
  'move',
  'assign',
  'reassign',
  'unassign',
  'reschedule',
  'adjust',
  'correct',
  'mark',
  'flag',
  'tag',
  'untag',
  // Sending an invoice goes to the customer.
  'send',
  'resend',
  'email',
]);

/** Verbs that make a new record from what the call gives (not `import`, `copy`, … from elsewhere). */
export const MAKING_VERBS: readonly string[] = [
  'create',
  'add',
  'new',
  'insert',
  'record',
  'post',
  'make',
  'raise',
  'issue',
  'enter',
  'book',
  'register',
  'log',
  'submit',
  'save',
  'append',
  'write',
];

/** Other verbs known to write (tier 1); any verb not listed anywhere is a write too. */
export const CREATE_VERBS: ReadonlySet<string> = new Set([
  ...MAKING_VERBS,
  'receive',
  'pay',
  'import',
  'reconcile',
  'apply',
  'allocate',
  'transfer',
  'refund',
  'deposit',
  'withdraw',
  'generate',
  'duplicate',
  'copy',
  'clone',
  'convert',
  'restore',
  'unarchive',
  'activate',
  'enable',
  'upload',
  'attach',
  'bill',
  'charge',
  'credit',
  'debit',
  'order',
  'purchase',
  'sync',
  'push',
  'put',
  'finalize',
  'finalise',
  'authorize',
  'authorise',
  'capture',
  'confirm',
  'accept',
  'decline',
  'release',
  'process',
  'schedule',
  'draft',
  'return',
  'claim',
  'match',
  'unlock',
  'open',
  'reopen',
  'invite',
  'grant',
  'suspend',
  'resume',
  'start',
  'stop',
  'restart',
  'publish',
  'unpublish',
  'share',
  'notify',
  'split',
  'export',
  'execute',
  'exec',
  'run',
  'eval',
  'invoke',
  'call',
  'mutate',
]);

/**
 * Change verbs that are also nouns or adjectives of the books: where they stand as a read verb's
 * object (`get_bill`, `list_credit_notes`, `get_sync_status`) they are nouns; as the leading verb,
 * after a conjunction or in a server prefix they name a change.
 */
export const VERB_NOUNS: ReadonlySet<string> = new Set([
  'bill',
  'credit',
  'debit',
  'transfer',
  'order',
  'charge',
  'post',
  'record',
  'book',
  'file',
  'deposit',
  'refund',
  'purchase',
  'import',
  'export',
  'upload',
  'issue',
  'log',
  'register',
  'lock',
  'close',
  'sync',
  'email',
  'new',
  'draft',
  'match',
  'schedule',
  'return',
  'claim',
  'release',
  'process',
  'pay',
  'open',
  'call',
  'start',
  'stop',
  'flag',
  'tag',
  'run',
  'duplicate',
  'share',
  'split',
  'push',
  'grant',
  'decline',
  'capture',
  'reverse',
  'copy',
]);

/** Words that join a second action to a name: after one, any verb names a change. */
export const CONJUNCTIONS: ReadonlySet<string> = new Set(['and', 'or', 'then', 'plus']);

/**
 * Nouns and adjectives of the books, which after a conjunction continue an object
 * (`get_profit_and_loss`) rather than start a second action. A word after a conjunction that is
 * neither one of these nor shaped like a noun is taken for a verb: fail closed.
 */
export const BOOK_NOUNS: ReadonlySet<string> = new Set(
  `invoice payment customer vendor supplier contact account ledger journal entry transaction item
  product service tax rate report balance sheet statement profit loss income expense cash flow asset
  liability equity receivable payable aged summary detail status total amount date period year month
  quarter week day budget estimate quote receipt note memo employee payroll timesheet project task
  class location department category currency bank term user org organisation organization company
  entity attachment document history activity audit trail trial gst vat hsn sac pan gstin tds tcs
  inventory stock warehouse unit price discount line group type setting preference info metadata
  schema table field page result data name id number reference code description address phone sale
  purchase opening closing cost revenue margin gross net overdue outstanding due paid unpaid open
  closed pending approved recent all latest active inactive current previous next other customer
  vendor party partner debtor creditor owner director shareholder capital loan interest dividend
  depreciation accrual prepayment provision reserve fund funds money fee salary wage bonus commission
  allowance deduction contribution pension insurance rent utility travel meal office supply asset
  goods shipment delivery dispatch challan voucher cheque check card wallet upi neft rtgs imps
  ifsc swift iban routing branch region state country city zip pin email phone mobile fax website
  url link image file files pdf csv json xml text comment reply message thread conversation event
  log logs count counts list lists view views detail details overview dashboard kpi metric metrics
  ratio trend forecast variance comparison analysis insight insights chart graph node nodes edge
  edges relation relations observation observations graph knowledge memory resource resources
  prompt prompts tool tools server servers collection collections index indexes database databases
  record records row rows column columns value values key keys version versions role roles
  permission permissions member members team teams plan plans subscription subscriptions coupon
  coupons dispute disputes price prices intent intents link links session sessions
  organisation details tracking option options credit debit bill bills order orders charge charges
  transfer transfers refund refunds deposit deposits`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

/** Words in a name that run statements the caller writes (`run_sql`, `graphql_query`). */
export const STATEMENT_WORDS: ReadonlySet<string> = new Set([
  'sql',
  'graphql',
  'soql',
  'sosl',
  'sparql',
  'cypher',
  'hql',
  'jql',
  'mql',
  'kql',
  'query',
  'queries',
  'mutation',
  'mutations',
]);

/** Leading verbs that run what the caller gives (`execute_kw`, `run_report`, `eval`). */
export const RUNNER_VERBS: ReadonlySet<string> = new Set([
  'execute',
  'exec',
  'run',
  'eval',
  'invoke',
  'mutate',
]);
