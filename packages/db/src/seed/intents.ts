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
