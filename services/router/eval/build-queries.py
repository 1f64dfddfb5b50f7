# Writes queries.jsonl: the labelled evaluation set of the router (hand-written queries, grouped here for brevity).
import json

G = {
 'list_invoices': ['invoices'], 'overdue_invoices': ['aging_reports'], 'list_bills': ['bills'],
 'overdue_bills': ['aging_reports'], 'list_payments': ['payments'], 'list_customers': ['customers'],
 'list_vendors': ['vendors'], 'chart_of_accounts': ['accounts'], 'profit_and_loss': ['reports_pnl'],
 'balance_sheet': ['reports_balance'], 'cash_flow': ['reports_cashflow'], 'gst_summary': ['reports_gst'],
 'unpaid_invoices': ['invoices'], 'paid_invoices': ['invoices'], 'draft_invoices': ['invoices'],
 'partially_paid_invoices': ['invoices'], 'voided_invoices': ['invoices'], 'recent_invoices': ['invoices'],
 'invoice_details': ['invoices'], 'bill_details': ['bills'], 'payments_received': ['payments'],
 'payments_made': ['payments'], 'bills_awaiting_approval': ['bills'], 'unpaid_bills': ['bills'],
 'paid_bills': ['bills'], 'draft_bills': ['bills'], 'voided_bills': ['bills'], 'credit_notes': ['credit_notes'],
 'journal_entries': ['journal'], 'trial_balance': ['reports_balance'], 'asset_accounts': ['accounts'],
 'liability_accounts': ['accounts'], 'expense_accounts': ['accounts'], 'revenue_accounts': ['accounts'],
 'equity_accounts': ['accounts'], 'cash_position': ['reports_cashflow'], 'total_sales': ['reports_pnl'],
 'total_expenses': ['reports_pnl'], 'gross_profit': ['reports_pnl'],
}

FAST = {
 'list_invoices': ['Show me all invoices', 'can you list my invoices please', 'invoices', 'INVOICES!!', 'all invoices list', 'display all the invoices', 'saare invoices dikhao', 'invoice list batao', 'sab invoice dikhaiye', 'show all invocies', 'list all invoicess', 'please show invoices'],
 'overdue_invoices': ['overdue invoices', 'show me overdue invoices please', 'which of my invoices are past due', 'invoices overdue', 'who owes us money', 'receivable ageing report', 'aged receivables', 'hi, show my overdue invoices', 'overdue invoice batao', 'kiska payment baaki hai?', 'show overdue invoces'],
 'list_bills': ['show my bills', 'bills', 'list all my bills please', 'all bills', 'saare bills dikhao', 'bill list batao', 'show all bils'],
 'overdue_bills': ['overdue bills', 'which bills are past due', 'aged payables', 'payables ageing', 'how much do we owe vendors', 'overdue bills dikhao', 'bills overdue'],
 'list_payments': ['show payments', 'payments', 'all payments', 'list my payments', 'saare payment dikhao', 'payment list batao', 'show all paymnets', 'recent payments please'],
 'list_customers': ['customers', 'list my customers', 'show customer list', 'who are our customers', 'saare customers dikhao', 'grahak list dikhao', 'show all custmers', 'all clients'],
 'list_vendors': ['vendors', 'list all vendors please', 'show suppliers', 'who are our suppliers', 'saare vendors dikhao', 'supplier list dikhao', 'show all vendros'],
 'chart_of_accounts': ['chart of accounts', 'show me the chart of accounts', 'COA', 'list accounts', 'ledger accounts', 'saare khate dikhao', 'charts of accounts please'],
 'profit_and_loss': ['P&L', 'show my P & L', 'profit and loss', 'profit & loss report', 'income statement please', 'pnl', 'naafa nuksaan dikhao', 'profit loss batao', 'show profit and los'],
 'balance_sheet': ['balance sheet', 'show me the balance sheet', 'balance sheet please', 'balance sheet dikhao', 'balancesheet', 'show balance shet'],
 'cash_flow': ['cash flow', 'cashflow statement', 'show me cash flow', 'cash flow dikhao', 'cash flow report please', 'show cash flwo'],
 'gst_summary': ['GST', 'gst summary please', 'show gst report', 'gst liability', 'gst summary dikhao', 'gst ka hisaab', 'GST summery'],
 'unpaid_invoices': ['unpaid invoices', 'show me unpaid invoices', 'invoices which are unpaid', 'unpaid invoice list', 'unpaid invoices dikhao'],
 'paid_invoices': ['paid invoices', 'show all paid invoices', 'invoices that are paid', 'paid invoice dikhao'],
 'draft_invoices': ['draft invoices', 'show draft invoices please', 'invoices in draft status', 'draft invoice batao'],
 'partially_paid_invoices': ['partially paid invoices', 'show partially paid invoices please', 'invoices partially paid'],
 'voided_invoices': ['voided invoices', 'cancelled invoices', 'show cancelled invoices', 'invoices cancelled'],
 'recent_invoices': ['latest invoices', 'show recent invoices', 'newest invoices please', 'last 10 invoices'],
 'invoice_details': ['show invoice INV-0042', 'INV-0007', 'details of INV-0013', 'inv-0005 details', 'invoice INV0042', 'INV-0042 dikhao', 'open invoice INV-0020'],
 'bill_details': ['show bill BILL-0007', 'BILL-0003', 'details of bill-0011', 'BILL-0004 dikhao', 'open bill BILL0002'],
 'payments_received': ['payments received', 'show payments received from customers', 'customer payments', 'collections', 'kitna payment mila?'],
 'payments_made': ['payments made', 'vendor payments', 'show payments made to vendors', 'payments to suppliers', 'vendor ko diye payment'],
 'bills_awaiting_approval': ['bills awaiting approval', 'bills pending approval', 'which bills need approval?', 'submitted bills'],
 'unpaid_bills': ['unpaid bills', 'show unpaid bills', 'bills to pay', 'unpaid bill dikhao'],
 'paid_bills': ['paid bills', 'show paid bills please', 'bills which are paid'],
 'draft_bills': ['draft bills', 'show draft bills', 'draft bill dikhao'],
 'voided_bills': ['voided bills', 'cancelled bills', 'show voided bills'],
 'credit_notes': ['credit notes', 'show credit notes', 'list all credit notes', 'credit note dikhao', 'customer refunds'],
 'journal_entries': ['journal entries', 'show journal entries', 'day book', 'journal entry dikhao', 'show the daybook'],
 'trial_balance': ['trial balance', 'show trial balance', 'trial balance please', 'trial balance dikhao', 'show triel balance'],
 'asset_accounts': ['asset accounts', 'show asset accounts', 'what are my assets?'],
 'liability_accounts': ['liabilities', 'show my liabilities', 'liability accounts'],
 'expense_accounts': ['expense accounts', 'show expense accounts', 'expense ledgers'],
 'revenue_accounts': ['revenue accounts', 'income accounts', 'show income accounts'],
 'equity_accounts': ['equity accounts', 'show equity', 'capital accounts'],
 'cash_position': ['bank balance', 'what is my bank balance', 'cash in hand', 'kitna cash hai', 'cash position'],
 'total_sales': ['total sales', 'what are my total sales', 'total revenue', 'kitni bikri hui?', 'sales figure'],
 'total_expenses': ['total expenses', 'show my expenses', 'kitna kharcha hua', 'operating expenses'],
 'gross_profit': ['gross profit', 'what is my gross margin', 'gross profit batao'],
}

CHAT = ['hi', 'hello', 'Hello!', 'hey there', 'hiii', 'namaste', 'Namaste ji', 'नमस्ते', 'good morning', 'Good evening!',
 'thanks', 'thank you so much', 'thx', 'ok', 'okay', 'got it', 'cool', 'great, thanks', 'dhanyavaad', 'shukriya',
 'धन्यवाद', 'bye', 'goodbye', 'see you', 'alvida', 'tata', 'help', 'what can you do?', 'who are you', 'how are you?',
 'aap kaun ho', 'kya kar sakte ho', 'haan', 'nahi', 'theek hai', 'accha', 'yes', 'no', 'हाँ', 'ठीक है', 'sure']
OFFTOPIC = ['what is the weather today', 'tell me a joke', 'who won the cricket match', 'write a poem about rain',
 'recommend a movie', 'what is the capital of France', 'how do I bake a cake', 'play a song', 'mausam kaisa hai',
 'ek chutkula sunao', 'translate hello to french', 'what time is it', 'show me a joke', 'who is the prime minister', 'sing something']

# Financial queries no seeded intent answers as asked: the LLM path with the right groups.
LLM = [
 ('create an invoice for Acme Corp for ₹50,000', ['invoices']), ('record ₹5000 payment from Acme Corp', ['payments']),
 ('show invoices for Acme Corp', ['invoices']), ('show all invoices of last month', ['invoices']),
 ('invoices above 1 lakh', ['invoices']), ('compare sales this quarter with last quarter', ['trends_analysis']),
 ('forecast my cash flow for next 3 months', ['reports_cashflow', 'trends_analysis']),
 ('why did my profit drop in march', ['reports_pnl']), ('void invoice INV-0042', ['invoices']),
 ('send invoice INV-0012 to the customer', ['invoices']), ('approve bill BILL-0007', ['bills']),
 ('create a bill from Sharma Traders for das hazaar', ['bills']), ('add a new customer Ravi Kumar', ['customers']),
 ('add vendor Gupta Steel with GSTIN 27ABCDE1234F1Z5', ['vendors']), ('delete contact Ravi Kumar', ['customers']),
 ('create a credit note for INV-0010', ['credit_notes', 'invoices']), ('post a journal entry for depreciation', ['journal']),
 ('paanch lakh ka invoice banao for Acme', ['invoices']), ('Acme ka payment record karo dedh lakh', ['payments']),
 ('how much does Acme Corp owe me', ['customers']), ('which customer owes the most', ['customers']),
 ('top 5 vendors by spend', ['vendors']), ('show bills from Sharma Traders', ['bills']),
 ('payments received in january', ['payments']), ('gst for last quarter', ['reports_gst']),
 ('profit and loss for last year', ['reports_pnl']), ('balance sheet as of 31 march', ['reports_balance']),
 ('is my business healthy', ['kpi_dashboard']), ('show kpi dashboard', ['kpi_dashboard']),
 ('analyze my expense trend and compare with last year', ['trends_analysis']), ('reconcile my bank account', ['transactions']),
 ('update invoice INV-0003 due date to next friday', ['invoices']), ('mark bill BILL-0005 as paid', ['bills']),
 ('which invoices did Acme pay', ['invoices']), ('invoices due this week', ['invoices']), ('revenue by customer', ['customers']),
 ('invoice INV-0042 ka payment kab aayega', ['invoices', 'payments']), ('email INV-0009 to ravi@example.com', ['invoices']),
 ('stock of product A', ['inventory']), ('create e-invoice for INV-0004', ['gst_actions']),
]
MULTI = [
 ('show all bills and invoices', ['bills', 'invoices']), ('invoices and payments', ['invoices', 'payments']),
 ('customers and vendors list', ['customers', 'vendors']), ('show overdue invoices and bills', ['aging_reports']),
 ('bills aur invoices dikhao', ['bills', 'invoices']), ('profit and loss and balance sheet', ['reports_pnl', 'reports_balance']),
 ('show vendors and their bills', ['vendors', 'bills']), ('list customers and their invoices', ['customers', 'invoices']),
 ('gst summary and cash flow', ['reports_gst', 'reports_cashflow']), ('payments and credit notes', ['payments', 'credit_notes']),
 ('hello! what is my bank balance and gst', ['reports_cashflow', 'reports_gst']),
 ('namaste, invoices dikhao aur bills bhi', ['invoices', 'bills']),
]
# Follow-ups: the previous turn's groups are in the history.
FOLLOW = [
 ('show more', ['invoices']), ('next', ['bills']), ('aur dikhao', ['payments']), ('next page', ['customers']),
 ('filter by Acme', ['invoices']), ('only unpaid ones', ['invoices']), ('what about last month?', ['reports_pnl']),
 ('and for Acme?', ['invoices']), ('same for vendors', ['vendors']), ('aage dikhao', ['invoices']),
]
# Orders to change the books, phrased as orders or as questions: never the fast path to a read intent.
ORDERS = [
 ('Please void the invoice', ['invoices']), ('void the invoice', ['invoices']), ('can you void INV-0042?', ['invoices']),
 ('could you please cancel invoice INV-0042', ['invoices']), ('cancel the invoice', ['invoices']),
 ('cancel all draft invoices', ['invoices']), ('delete the draft invoices', ['invoices']),
 ('delete all voided invoices', ['invoices']), ('I want to void INV-0042', ['invoices']),
 ('void it', ['invoices']), ('INV-0042 needs to be voided, do it now', ['invoices']),
 ('approve the bills awaiting approval', ['bills']), ('approve all pending bills', ['bills']),
 ('can you approve the bills that need approval?', ['bills']), ('would you approve bill BILL-0007', ['bills']),
 ('Approve BILL-0007 please', ['bills']), ('is it possible to delete the draft bills?', ['bills']),
 ('remove the cancelled bills', ['bills']), ('pay the unpaid bills', ['bills']), ('pay all overdue bills', ['bills']),
 ('settle the bill from Sharma Traders', ['bills']), ('mark BILL-0005 as paid', ['bills']),
 ('send the overdue invoices to customers', ['invoices']), ('email all unpaid invoices to the customers', ['invoices']),
 ('send INV-0042 to Acme again', ['invoices']), ('record a payment for the unpaid invoices', ['payments', 'invoices']),
 ('please record the payments received today', ['payments']), ('update the draft invoices to 18% GST', ['invoices']),
 ('write off the overdue invoices of Acme', ['invoices']), ('create a credit note for the voided invoice', ['credit_notes']),
 ('hey munim, cancel the paid invoice INV-0031', ['invoices']), ('ok now void INV-0042 and INV-0043', ['invoices']),
 ('show me INV-0042 and then void it', ['invoices']), ('go ahead and approve the submitted bills', ['bills']),
 ('we need to pay Gupta Steel today', ['payments']), ('add a new vendor called Om Logistics', ['vendors']),
 ('bill ka payment kar do', ['bills']), ('saare pending bills approve kar do', ['bills']), ('invoice void kar do', ['invoices']),
 ('INV-0042 cancel karo', ['invoices']), ('draft invoices bhej do', ['invoices']), ('Acme ka invoice delete kar dijiye', ['invoices']),
 ('voided invoices hata do', ['invoices']), ('unpaid bills ka bhugtan karo', ['bills']),
 ('kya aap INV-0042 void kar sakte ho?', ['invoices']), ('payment record kar do Acme ka', ['payments']),
 ('overdue invoices ke customers ko reminder bhejo', ['invoices']), ('approval wale bills approve karna hai', ['bills']),
 ('इनवॉइस रद्द करो', ['invoices']), ('सभी बिल मंज़ूर करो', ['bills']), ('बकाया बिलों का भुगतान कर दो', ['bills']),
 ('INV-0042 हटाओ', ['invoices']), ('ड्राफ्ट इनवॉइस भेज दो', ['invoices']),
]
# Questions with a filter (a party, a period, an amount, a ranking, a second document): the intent's
# fixed pipeline would drop it, so the model answers (at any adaptive threshold).
FILTERED = [
 ('show overdue invoices for Acme Corp', ['aging_reports']), ('show overdue invoices from last quarter', ['aging_reports']),
 ('unpaid invoices of Sharma Traders', ['invoices']), ('paid bills from March', ['bills']),
 ('payments received from Acme this month', ['payments']), ('voided invoices in 2025', ['invoices']),
 ('draft invoices above ₹50,000', ['invoices']), ('top 5 overdue invoices', ['aging_reports']),
 ('largest unpaid bill', ['bills']), ('show P&L for Q1', ['reports_pnl']), ('cash flow for FY 2024-25', ['reports_cashflow']),
 ('customers in Mumbai', ['customers']), ('journal entries posted yesterday', ['journal']),
 ('gst summary for february', ['reports_gst']), ('invoices over 1 lakh that are unpaid', ['invoices']),
 ('Acme ke overdue invoices dikhao', ['aging_reports']), ('pichhle mahine ke paid bills', ['bills']),
 ('March ka profit and loss dikhao', ['reports_pnl']), ('sabse bada unpaid invoice kaunsa hai', ['invoices']),
 ('₹10,000 se zyada ke bills', ['bills']), ('show invoice INV-0042 and INV-0043', ['invoices']),
 ('who are my top 10 customers by revenue', ['customers']), ('show all invoices of Tata', ['invoices']),
 ('list bills from Bata', ['bills']), ('overdue invoices as of 31/03/2026', ['aging_reports']),
 ('recent invoices for Zen Labs', ['invoices']), ('payments made to Gupta Steel last week', ['payments']),
 ('cancelled invoices of Acme', ['invoices']), ('bills awaiting approval above 1 lakh', ['bills']),
 ('trial balance for last year', ['reports_balance']),
]
# Reads that use a change word as a status, a noun or a question: they keep the fast path.
STATUS_READS = [
 ('list of cancelled invoices', 'voided_invoices'), ('which invoices were voided?', 'voided_invoices'),
 ('show the void invoices', 'voided_invoices'), ('cancelled bills dikhao', 'voided_bills'),
 ('bills that are paid', 'paid_bills'), ('which bills need approval', 'bills_awaiting_approval'),
 ('bills waiting for approval', 'bills_awaiting_approval'), ('kaunse bill approve karne hain?', 'bills_awaiting_approval'),
 ('payments we made to suppliers', 'payments_made'), ('bills to pay', 'unpaid_bills'),
 ('jin bill ka payment ho gaya', 'paid_bills'), ('send me the balance sheet', 'balance_sheet'),
 ('email me the P&L', 'profit_and_loss'), ('can you show me the voided invoices?', 'voided_invoices'),
]
CONFIRM = ['yes', 'haan', 'kar do', 'theek hai', 'yes go ahead', 'haan kar do', 'confirm', 'ok do it', 'bilkul', 'ji haan']

rows = []
for intent, qs in FAST.items():
  for q in qs:
    rows.append({'q': q, 'category': 'unified', 'intent': intent, 'groups': G[intent], 'kind': 'intent'})
for q in CHAT:
  rows.append({'q': q, 'category': 'general_chat', 'intent': None, 'groups': [], 'kind': 'chat'})
for q in OFFTOPIC:
  rows.append({'q': q, 'category': 'general_chat', 'intent': None, 'groups': [], 'kind': 'off_topic'})
for q, g in LLM:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': g, 'kind': 'llm'})
for q, g in MULTI:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': g, 'kind': 'multi'})
for q, g in FOLLOW:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': g, 'kind': 'follow_up', 'history': {'groups': g, 'pendingAction': False}})
for q in CONFIRM:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': ['invoices'], 'kind': 'confirmation', 'history': {'groups': ['invoices'], 'pendingAction': True}})
for q, g in ORDERS:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': g, 'kind': 'order'})
for q, g in FILTERED:
  rows.append({'q': q, 'category': 'unified', 'intent': None, 'groups': g, 'kind': 'filter'})
for q, intent in STATUS_READS:
  rows.append({'q': q, 'category': 'unified', 'intent': intent, 'groups': G[intent], 'kind': 'intent'})
rows.append({'q': 'INV-0099 dikhao', 'category': 'unified', 'intent': 'invoice_details', 'groups': ['invoices'], 'kind': 'intent', 'args': {'InvoiceNumber': 'INV-0099'}})
rows.append({'q': 'bill-0012 ki details batao', 'category': 'unified', 'intent': 'bill_details', 'groups': ['bills'], 'kind': 'intent', 'args': {'BillNumber': 'BILL-0012'}})
with open('queries.jsonl', 'w') as f:
  for r in rows:
    f.write(json.dumps(r, ensure_ascii=False) + '\n')
print(len(rows), sum(1 for r in rows if r['intent']))
