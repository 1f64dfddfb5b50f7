import type { NewIntent, ResolutionStep } from '../schema.ts';

/** One intent of the starter catalog; the read tools are those of the demo accounting MCP server. */
export interface StarterIntent {
  id: string;
  name: string;
  moduleId: 'sales' | 'purchases' | 'banking' | 'reports' | 'gst' | 'contacts' | 'accounts';
  description: string;
  /** English training phrases. */
  trainingPhrases: readonly string[];
  /** Hinglish (romanised Hindi) training phrases. */
  hinglishPhrases: readonly string[];
  responseFormat: 'table' | 'report';
  resolutionFlow: readonly ResolutionStep[];
}

function step(tool: string, description: string, purpose: string): ResolutionStep {
  return { tool, args: {}, description, purpose };
}

/** The intents every fresh database starts with (migration 0002). */
export const STARTER_INTENTS: readonly StarterIntent[] = [
  {
    id: 'intent_list_invoices',
    name: 'list_invoices',
    moduleId: 'sales',
    description: 'List the sales invoices of the business',
    trainingPhrases: [
      'show all invoices',
      'list invoices',
      'list all invoices',
      'show my invoices',
      'get all invoices',
      'display my invoices',
    ],
    hinglishPhrases: ['sabhi invoice dikhao', 'invoice list dikhao', 'mere saare invoice dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      step('get_all_invoices', 'Fetch all invoices', 'List the invoices with status and amounts'),
    ],
  },
  {
    id: 'intent_overdue_invoices',
    name: 'overdue_invoices',
    moduleId: 'sales',
    description: 'Overdue customer invoices and the receivables aging',
    trainingPhrases: [
      'show overdue invoices',
      'which invoices are overdue',
      'receivables aging',
      'aged receivables report',
      'who owes me money',
      'outstanding receivables',
    ],
    hinglishPhrases: [
      'overdue invoice dikhao',
      'customers se kitna paisa baaki hai',
      'kiska payment baaki hai',
    ],
    responseFormat: 'table',
    resolutionFlow: [
      step(
        'get_aged_receivables_report',
        'Fetch the aged receivables report',
        'Show what customers owe, bucketed by days overdue',
      ),
    ],
  },
  {
    id: 'intent_list_bills',
    name: 'list_bills',
    moduleId: 'purchases',
    description: 'List the purchase bills of the business',
    trainingPhrases: ['show all bills', 'list bills', 'list all bills', 'show my bills', 'get all bills'],
    hinglishPhrases: ['sabhi bill dikhao', 'bill list dikhao', 'mere saare bill dikhao'],
    responseFormat: 'table',
    resolutionFlow: [step('get_bills', 'Fetch all bills', 'List the bills with status and amounts')],
  },
  {
    id: 'intent_overdue_bills',
    name: 'overdue_bills',
    moduleId: 'purchases',
    description: 'Overdue vendor bills and the payables aging',
    trainingPhrases: [
      'show overdue bills',
      'which bills are overdue',
      'payables aging',
      'aged payables report',
      'how much do i owe vendors',
      'outstanding payables',
    ],
    hinglishPhrases: ['overdue bill dikhao', 'vendors ko kitna dena baaki hai', 'kaunse bill due hain'],
    responseFormat: 'table',
    resolutionFlow: [
      step(
        'get_aged_payables_report',
        'Fetch the aged payables report',
        'Show what the business owes vendors, bucketed by days overdue',
      ),
    ],
  },
  {
    id: 'intent_list_payments',
    name: 'list_payments',
    moduleId: 'banking',
    description: 'List the payments recorded in the books',
    trainingPhrases: [
      'show all payments',
      'list payments',
      'list all payments',
      'show my payments',
      'recent payments',
    ],
    hinglishPhrases: ['sabhi payment dikhao', 'payment list dikhao', 'saare bhugtan dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      step('get_all_payments', 'Fetch all payments', 'List the payments with dates and amounts'),
    ],
  },
  {
    id: 'intent_list_customers',
    name: 'list_customers',
    moduleId: 'contacts',
    description: 'List the customers of the business',
    trainingPhrases: [
      'show all customers',
      'list customers',
      'list all customers',
      'show my customers',
      'who are my customers',
    ],
    hinglishPhrases: ['sabhi customer dikhao', 'customer list dikhao', 'mere grahak dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      step('get_all_customers', 'Fetch all customers', 'List the customers with contact details'),
    ],
  },
  {
    id: 'intent_list_vendors',
    name: 'list_vendors',
    moduleId: 'contacts',
    description: 'List the vendors (suppliers) of the business',
    trainingPhrases: [
      'show all vendors',
      'list vendors',
      'list all vendors',
      'show my vendors',
      'who are my suppliers',
    ],
    hinglishPhrases: ['sabhi vendor dikhao', 'vendor list dikhao', 'mere supplier dikhao'],
    responseFormat: 'table',
    resolutionFlow: [step('get_all_vendors', 'Fetch all vendors', 'List the vendors with contact details')],
  },
  {
    id: 'intent_chart_of_accounts',
    name: 'chart_of_accounts',
    moduleId: 'accounts',
    description: 'The chart of accounts of the ledger',
    trainingPhrases: [
      'show chart of accounts',
      'chart of accounts',
      'list all accounts',
      'show ledger accounts',
      'show all accounts',
    ],
    hinglishPhrases: ['chart of accounts dikhao', 'saare khate dikhao', 'account list dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      step('get_charts_of_accounts', 'Fetch the chart of accounts', 'List the accounts with codes and types'),
    ],
  },
  {
    id: 'intent_profit_and_loss',
    name: 'profit_and_loss',
    moduleId: 'reports',
    description: 'Profit and loss statement (income statement)',
    trainingPhrases: [
      'show profit and loss',
      'profit and loss statement',
      'p&l report',
      'income statement',
      'how much profit did we make',
      'show my p&l',
    ],
    hinglishPhrases: ['profit loss dikhao', 'naafa nuksaan batao', 'kitna munafa hua'],
    responseFormat: 'report',
    resolutionFlow: [
      step(
        'get_profit_loss',
        'Fetch the profit and loss statement',
        'Report revenue, expenses and net profit',
      ),
    ],
  },
  {
    id: 'intent_balance_sheet',
    name: 'balance_sheet',
    moduleId: 'reports',
    description: 'Balance sheet: assets, liabilities and equity',
    trainingPhrases: [
      'show balance sheet',
      'balance sheet',
      'balance sheet report',
      'show assets and liabilities',
      'what is my net worth',
    ],
    hinglishPhrases: ['balance sheet dikhao', 'sampatti aur dendari batao'],
    responseFormat: 'report',
    resolutionFlow: [
      step('get_balance_sheet', 'Fetch the balance sheet', 'Report assets, liabilities and equity'),
    ],
  },
  {
    id: 'intent_cash_flow',
    name: 'cash_flow',
    moduleId: 'reports',
    description: 'Cash flow statement',
    trainingPhrases: [
      'show cash flow',
      'cash flow statement',
      'cash flow report',
      'where did my cash go',
      'show cash inflows and outflows',
    ],
    hinglishPhrases: ['cash flow dikhao', 'paisa kahan gaya batao', 'nakad pravah dikhao'],
    responseFormat: 'report',
    resolutionFlow: [
      step(
        'get_cash_flow_statement',
        'Fetch the cash flow statement',
        'Report operating, investing and financing cash flows',
      ),
    ],
  },
  {
    id: 'intent_gst_summary',
    name: 'gst_summary',
    moduleId: 'gst',
    description: 'GST summary: output tax, input tax credit and net liability',
    trainingPhrases: [
      'show gst summary',
      'gst summary',
      'gst report',
      'how much gst do i owe',
      'gst liability',
      'input tax credit summary',
    ],
    hinglishPhrases: ['gst summary dikhao', 'kitna gst bharna hai', 'gst ka hisaab batao'],
    responseFormat: 'report',
    resolutionFlow: [
      step('get_gst_summary', 'Fetch the GST summary', 'Report output GST, input tax credit and net payable'),
    ],
  },
];

/** The `intents` row of a starter intent: English phrases first, then Hinglish. */
export function starterIntentRow(intent: StarterIntent): NewIntent {
  return {
    id: intent.id,
    name: intent.name,
    module_id: intent.moduleId,
    description: intent.description,
    training_phrases: JSON.stringify([...intent.trainingPhrases, ...intent.hinglishPhrases]),
    entities: JSON.stringify([]),
    resolution_flow: JSON.stringify(intent.resolutionFlow),
    response_format: intent.responseFormat,
    is_active: true,
  };
}

function call(
  tool: string,
  args: Record<string, unknown>,
  description: string,
  purpose: string,
): ResolutionStep {
  return { tool, args, description, purpose };
}

/**
 * Intents added by migration 0003: status filters, the other read tools and reports of the demo
 * books. `{{documentNumber}}` in an argument is filled by the router from the query's entities.
 */
export const MORE_INTENTS: readonly StarterIntent[] = [
  {
    id: 'intent_unpaid_invoices',
    name: 'unpaid_invoices',
    moduleId: 'sales',
    description: 'Approved sales invoices not yet paid',
    trainingPhrases: [
      'show unpaid invoices',
      'unpaid invoices',
      'invoices not paid yet',
      'which invoices are unpaid',
    ],
    hinglishPhrases: [
      'unpaid invoice dikhao',
      'kaunse invoice ka payment nahi aaya',
      'bina payment wale invoice',
    ],
    responseFormat: 'table',
    resolutionFlow: [
      call(
        'get_all_invoices',
        { Status: 'UNPAID' },
        'Fetch unpaid invoices',
        'List invoices awaiting payment',
      ),
    ],
  },
  {
    id: 'intent_paid_invoices',
    name: 'paid_invoices',
    moduleId: 'sales',
    description: 'Sales invoices paid in full',
    trainingPhrases: [
      'show paid invoices',
      'paid invoices',
      'which invoices are paid',
      'fully paid invoices',
    ],
    hinglishPhrases: ['paid invoice dikhao', 'jin invoice ka payment aa gaya', 'bhugtan ho chuke invoice'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_all_invoices', { Status: 'PAID' }, 'Fetch paid invoices', 'List paid invoices'),
    ],
  },
  {
    id: 'intent_draft_invoices',
    name: 'draft_invoices',
    moduleId: 'sales',
    description: 'Sales invoices still in draft',
    trainingPhrases: [
      'show draft invoices',
      'draft invoices',
      'invoices in draft',
      'which invoices are drafts',
    ],
    hinglishPhrases: ['draft invoice dikhao', 'draft wale invoice batao'],
    responseFormat: 'table',
    resolutionFlow: [call('get_all_invoices', { Status: 'DRAFT' }, 'Fetch draft invoices', 'List drafts')],
  },
  {
    id: 'intent_partially_paid_invoices',
    name: 'partially_paid_invoices',
    moduleId: 'sales',
    description: 'Sales invoices paid in part',
    trainingPhrases: [
      'partially paid invoices',
      'show partially paid invoices',
      'invoices with part payment',
    ],
    hinglishPhrases: ['aadha payment wale invoice', 'partially paid invoice dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      call(
        'get_all_invoices',
        { Status: 'PARTIALLY_PAID' },
        'Fetch partially paid invoices',
        'List invoices with a balance left',
      ),
    ],
  },
  {
    id: 'intent_voided_invoices',
    name: 'voided_invoices',
    moduleId: 'sales',
    description: 'Voided (cancelled) sales invoices',
    trainingPhrases: ['show voided invoices', 'voided invoices', 'cancelled invoices', 'canceled invoices'],
    hinglishPhrases: ['cancel hue invoice dikhao', 'void invoice list'],
    responseFormat: 'table',
    resolutionFlow: [call('get_all_invoices', { Status: 'VOIDED' }, 'Fetch voided invoices', 'List voided')],
  },
  {
    id: 'intent_recent_invoices',
    name: 'recent_invoices',
    moduleId: 'sales',
    description: 'The ten most recent sales invoices',
    trainingPhrases: ['recent invoices', 'latest invoices', 'last 10 invoices', 'newest invoices'],
    hinglishPhrases: ['haal ke invoice dikhao', 'naye invoice dikhao', 'latest invoice batao'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_all_invoices', { PageSize: 10 }, 'Fetch the latest invoices', 'List the ten newest invoices'),
    ],
  },
  {
    id: 'intent_invoice_details',
    name: 'invoice_details',
    moduleId: 'sales',
    description: 'One sales invoice by its number',
    trainingPhrases: ['show invoice INV-0001', 'details of INV-0001', 'INV-0001', 'open invoice INV-0001'],
    hinglishPhrases: ['INV-0001 dikhao', 'invoice INV-0001 ki details batao'],
    responseFormat: 'report',
    resolutionFlow: [
      call(
        'get_invoice',
        { InvoiceNumber: '{{documentNumber}}' },
        'Fetch the invoice by number',
        'Show the invoice lines, totals and payments',
      ),
    ],
  },
  {
    id: 'intent_bill_details',
    name: 'bill_details',
    moduleId: 'purchases',
    description: 'One purchase bill by its number',
    trainingPhrases: ['show bill BILL-0001', 'details of BILL-0001', 'BILL-0001', 'open bill BILL-0001'],
    hinglishPhrases: ['BILL-0001 dikhao', 'bill BILL-0001 ki details batao'],
    responseFormat: 'report',
    resolutionFlow: [
      call(
        'get_bill',
        { BillNumber: '{{documentNumber}}' },
        'Fetch the bill by number',
        'Show the bill lines, totals and payments',
      ),
    ],
  },
  {
    id: 'intent_payments_received',
    name: 'payments_received',
    moduleId: 'banking',
    description: 'Payments received from customers',
    trainingPhrases: [
      'payments received',
      'show payments received',
      'customer payments',
      'money received from customers',
      'collections',
    ],
    hinglishPhrases: ['customer se aaye payment dikhao', 'kitna payment mila', 'grahak se mila paisa'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_all_payments', { Type: 'RECEIVE' }, 'Fetch payments received', 'List customer receipts'),
    ],
  },
  {
    id: 'intent_payments_made',
    name: 'payments_made',
    moduleId: 'banking',
    description: 'Payments made to vendors',
    trainingPhrases: [
      'payments made',
      'show payments made',
      'vendor payments',
      'payments to vendors',
      'money paid to suppliers',
    ],
    hinglishPhrases: [
      'vendor ko diye payment dikhao',
      'supplier ko kitna payment diya',
      'vendor ko diya paisa',
    ],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_all_payments', { Type: 'SPEND' }, 'Fetch payments made', 'List vendor payments'),
    ],
  },
  {
    id: 'intent_bills_awaiting_approval',
    name: 'bills_awaiting_approval',
    moduleId: 'purchases',
    description: 'Purchase bills submitted and waiting for approval',
    trainingPhrases: [
      'bills awaiting approval',
      'bills pending approval',
      'which bills need approval',
      'submitted bills',
    ],
    hinglishPhrases: ['approval ke liye bill dikhao', 'kaunse bill approve karne hain'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_bills', { Status: 'SUBMITTED' }, 'Fetch bills awaiting approval', 'List bills to approve'),
    ],
  },
  {
    id: 'intent_unpaid_bills',
    name: 'unpaid_bills',
    moduleId: 'purchases',
    description: 'Approved purchase bills not yet paid',
    trainingPhrases: ['unpaid bills', 'show unpaid bills', 'bills to pay', 'bills not paid yet'],
    hinglishPhrases: ['unpaid bill dikhao', 'kaunse bill ka payment karna hai', 'bina payment wale bill'],
    responseFormat: 'table',
    resolutionFlow: [call('get_bills', { Status: 'AUTHORISED' }, 'Fetch unpaid bills', 'List bills to pay')],
  },
  {
    id: 'intent_paid_bills',
    name: 'paid_bills',
    moduleId: 'purchases',
    description: 'Purchase bills paid in full',
    trainingPhrases: ['paid bills', 'show paid bills', 'which bills are paid', 'fully paid bills'],
    hinglishPhrases: ['paid bill dikhao', 'jin bill ka payment ho gaya'],
    responseFormat: 'table',
    resolutionFlow: [call('get_bills', { Status: 'PAID' }, 'Fetch paid bills', 'List paid bills')],
  },
  {
    id: 'intent_draft_bills',
    name: 'draft_bills',
    moduleId: 'purchases',
    description: 'Purchase bills still in draft',
    trainingPhrases: ['draft bills', 'show draft bills', 'bills in draft'],
    hinglishPhrases: ['draft bill dikhao', 'draft wale bill batao'],
    responseFormat: 'table',
    resolutionFlow: [call('get_bills', { Status: 'DRAFT' }, 'Fetch draft bills', 'List draft bills')],
  },
  {
    id: 'intent_voided_bills',
    name: 'voided_bills',
    moduleId: 'purchases',
    description: 'Voided (cancelled) purchase bills',
    trainingPhrases: ['voided bills', 'show voided bills', 'cancelled bills', 'canceled bills'],
    hinglishPhrases: ['cancel hue bill dikhao', 'void bill list'],
    responseFormat: 'table',
    resolutionFlow: [call('get_bills', { Status: 'VOIDED' }, 'Fetch voided bills', 'List voided bills')],
  },
  {
    id: 'intent_credit_notes',
    name: 'credit_notes',
    moduleId: 'sales',
    description: 'Sales credit notes (returns and refunds)',
    trainingPhrases: [
      'show credit notes',
      'credit notes',
      'list credit notes',
      'customer refunds',
      'sales returns',
    ],
    hinglishPhrases: ['credit note dikhao', 'saare credit note batao', 'refund list dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      step('get_all_sales_credit_notes', 'Fetch credit notes', 'List credit notes with amounts'),
    ],
  },
  {
    id: 'intent_journal_entries',
    name: 'journal_entries',
    moduleId: 'accounts',
    description: 'Manual journal entries (the day book)',
    trainingPhrases: [
      'show journal entries',
      'journal entries',
      'day book',
      'list journals',
      'manual journals',
    ],
    hinglishPhrases: ['journal entry dikhao', 'day book dikhao', 'rozmarra ki entries'],
    responseFormat: 'table',
    resolutionFlow: [step('get_all_journal_entries', 'Fetch journal entries', 'List the day book')],
  },
  {
    id: 'intent_trial_balance',
    name: 'trial_balance',
    moduleId: 'reports',
    description: 'Trial balance: debit and credit balance of every account',
    trainingPhrases: ['show trial balance', 'trial balance', 'trial balance report', 'tb report'],
    hinglishPhrases: ['trial balance dikhao', 'trial balance batao'],
    responseFormat: 'report',
    resolutionFlow: [
      step('get_trial_balance', 'Fetch the trial balance', 'Report debit and credit balances'),
    ],
  },
  {
    id: 'intent_asset_accounts',
    name: 'asset_accounts',
    moduleId: 'accounts',
    description: 'Asset accounts with balances (bank, cash, receivables)',
    trainingPhrases: ['asset accounts', 'show asset accounts', 'list assets', 'what are my assets'],
    hinglishPhrases: ['asset account dikhao', 'meri sampatti batao'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_charts_of_accounts', { Type: 'ASSET' }, 'Fetch asset accounts', 'List assets with balances'),
    ],
  },
  {
    id: 'intent_liability_accounts',
    name: 'liability_accounts',
    moduleId: 'accounts',
    description: 'Liability accounts with balances',
    trainingPhrases: [
      'liability accounts',
      'show liabilities',
      'list liabilities',
      'what are my liabilities',
    ],
    hinglishPhrases: ['liability account dikhao', 'meri dendari batao'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_charts_of_accounts', { Type: 'LIABILITY' }, 'Fetch liability accounts', 'List liabilities'),
    ],
  },
  {
    id: 'intent_expense_accounts',
    name: 'expense_accounts',
    moduleId: 'accounts',
    description: 'Expense accounts with balances',
    trainingPhrases: ['expense accounts', 'show expense accounts', 'list expense heads', 'expense ledgers'],
    hinglishPhrases: ['kharche ke khate dikhao', 'expense account list'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_charts_of_accounts', { Type: 'EXPENSE' }, 'Fetch expense accounts', 'List expense heads'),
    ],
  },
  {
    id: 'intent_revenue_accounts',
    name: 'revenue_accounts',
    moduleId: 'accounts',
    description: 'Revenue (income) accounts with balances',
    trainingPhrases: ['revenue accounts', 'income accounts', 'show income accounts', 'list revenue heads'],
    hinglishPhrases: ['income ke khate dikhao', 'revenue account list'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_charts_of_accounts', { Type: 'REVENUE' }, 'Fetch revenue accounts', 'List income heads'),
    ],
  },
  {
    id: 'intent_equity_accounts',
    name: 'equity_accounts',
    moduleId: 'accounts',
    description: 'Equity accounts with balances',
    trainingPhrases: ['equity accounts', 'show equity', 'capital accounts', 'owner equity'],
    hinglishPhrases: ['equity account dikhao', 'poonji dikhao'],
    responseFormat: 'table',
    resolutionFlow: [
      call('get_charts_of_accounts', { Type: 'EQUITY' }, 'Fetch equity accounts', 'List equity'),
    ],
  },
  {
    id: 'intent_cash_position',
    name: 'cash_position',
    moduleId: 'reports',
    description: 'Bank and cash balances',
    trainingPhrases: [
      'bank balance',
      'cash balance',
      'how much cash do we have',
      'cash in hand',
      'cash position',
    ],
    hinglishPhrases: ['bank mein kitna paisa hai', 'kitna cash hai', 'bank balance batao'],
    responseFormat: 'report',
    resolutionFlow: [
      step('get_cash_flow_statement', 'Fetch cash flows and balances', 'Report the bank and cash balances'),
    ],
  },
  {
    id: 'intent_total_sales',
    name: 'total_sales',
    moduleId: 'reports',
    description: 'Total sales (revenue) for the period',
    trainingPhrases: ['total sales', 'show revenue', 'total revenue', 'what are my sales', 'sales figure'],
    hinglishPhrases: ['kitni bikri hui', 'total bikri batao', 'sales kitni hui'],
    responseFormat: 'report',
    resolutionFlow: [step('get_profit_loss', 'Fetch the income statement', 'Report total sales')],
  },
  {
    id: 'intent_total_expenses',
    name: 'total_expenses',
    moduleId: 'reports',
    description: 'Total expenses for the period',
    trainingPhrases: [
      'total expenses',
      'show expenses',
      'operating expenses',
      'what did we spend',
      'expense summary',
    ],
    hinglishPhrases: ['kitna kharcha hua', 'total kharcha batao', 'kharche dikhao'],
    responseFormat: 'report',
    resolutionFlow: [step('get_profit_loss', 'Fetch the income statement', 'Report expenses by head')],
  },
  {
    id: 'intent_gross_profit',
    name: 'gross_profit',
    moduleId: 'reports',
    description: 'Gross profit and margin',
    trainingPhrases: ['gross profit', 'gross margin', 'what is my gross profit', 'show gross margin'],
    hinglishPhrases: ['gross profit batao', 'gross margin kitna hai'],
    responseFormat: 'report',
    resolutionFlow: [step('get_profit_loss', 'Fetch the income statement', 'Report gross profit and margin')],
  },
];
