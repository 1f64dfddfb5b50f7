/**
 * The words a user's message orders a change with, and names the books' records with, in English,
 * Hinglish and Hindi (Devanagari). Every word is lower-case and NFC: Devanagari nukta letters
 * (ज़, ड़) decompose under NFC, so keys are normalised the same way as the text they are looked up in.
 */
const nfc = (words: string) =>
  words
    .trim()
    .split(/\s+/)
    .map((w) => w.normalize('NFC'));

const table = (pairs: Record<string, string>) =>
  new Map(Object.entries(pairs).flatMap(([to, from]) => nfc(from).map((w) => [w, to] as const)));

/**
 * Hinglish and Hindi words that are a change verb by themselves, in an imperative form (`hatao`,
 * `भेजो`) or as a stem that a following `do`/`दो` makes one (`hata do`): their English verb.
 */
export const NATIVE_VERBS: ReadonlyMap<string, string> = table({
  remove: `hatao hatado hataiye hataaiye hatayein nikalo nikaldo nikaliye हटाओ हटाइए हटाइये हटाएं हटाएँ हटादो
    निकालो निकालिए निकालें`,
  erase: 'mitao mitado mitaiye मिटाओ मिटाइए मिटाएं मिटादो',
  create: 'banao banado banaiye banaaiye banayein बनाओ बनाइए बनाइये बनाएं बनाएँ बनादो',
  send: 'bhejo bhejdo bhejiye bhejein भेजो भेजिए भेजिये भेजें भेजदो',
  change: 'badlo badaldo badliye badlein बदलो बदलिए बदलिये बदलें',
  enter: 'daalo dalo daaldo daliye daaliye डालो डालिए डालें',
  add: 'jodo jodiye jodein joro जोड़ो जोड़िए जोड़िये जोड़ें',
  pay: 'chukao chukado chukaiye chukayein चुकाओ चुकाइए चुकाएं',
});

/** Stems that order a change when `do`, `dijiye`, `दो`, `दीजिए` follow them (`hata do`, `भेज दो`). */
export const NATIVE_STEMS: ReadonlyMap<string, string> = table({
  remove: 'hata nikal हटा निकाल',
  erase: 'mita मिटा',
  create: 'bana बना',
  send: 'bhej भेज',
  change: 'badal बदल',
  enter: 'daal dal डाल',
  add: 'jod jor जोड़',
  pay: 'chuka चुका',
});

/** Words that a light verb (`kar do`, `करो`) after them makes a change verb: their English verb. */
export const LIGHT_VERB_NOUNS: ReadonlyMap<string, string> = table({
  cancel: 'radd wapas रद्द कैंसल कैंसिल वापस',
  record: 'darj दर्ज रिकॉर्ड रिकार्ड एंट्री entry',
  pay: 'bhugtan payment भुगतान पेमेंट',
  approve: 'manzoor manjoor मंज़ूर मंजूर स्वीकृत अनुमोदित अप्रूव',
  delete: 'डिलीट',
  update: 'अपडेट',
  add: 'ऐड एड',
  send: 'सेंड',
  void: 'वॉइड',
  create: 'क्रिएट',
  post: 'पोस्ट',
});

/** Light verbs in an ordering form: after a verb or a `LIGHT_VERB_NOUNS` word they make an order. */
export const LIGHT_ORDER = new Set(
  nfc(`kar karo kardo karde kardein kardijiye karein karen kijiye kijie kijiyega kariye karie karna karni
    karenge karoge do dijiye dena de dein den le lo lijiye
    कर करो करदो करें करे कीजिए कीजिये करिए करिये करना करेंगे करोगे दो दीजिए दीजिये देना दें`),
);

/** What, right after a light verb `kar`/`कर`, makes it no order: done already or ongoing. */
export const LIGHT_DONE = new Set(
  nfc(`diya diye di chuka chuke chuki liya liye raha rahe rahi tha thi the
    दिया दिए दी चुका चुके चुकी लिया लिए रहा रहे रही था थी थे`),
);

/** Words after a verb that say it happened already (`cancel hua`, `रद्द किया`): no order. */
export const PAST_MARKERS = new Set(
  nfc(`kiya kiye kia ki hua hui hue huwa diya diye gaya gayi gaye gya tha thi
    किया किए किये की हुआ हुई हुए दिया दिए गया गई गए था थी`),
);

/** Negations placed anywhere near the verb (`hatao mat`, `delete nahi karna`). */
export const NEAR_NEGATIONS = new Set(nfc('mat nahi nahin nhi नहीं नही मत'));
/** Negations that only deny what follows them (`na karo`; a trailing `kar do na` pleads). */
export const BEFORE_NEGATIONS = new Set(nfc('na naa ना न not never without dont no neither nor avoid stop'));

/** Words that begin a clause without being its verb: dropped before finding the clause's head. */
export const FILLERS = new Set(
  nfc(`please pls plz kindly just now also ok okay so hi hey hello then munim ji sir bhai zara jara yes
    and can could would will u you i we want need have to like id would wish help me lets let us go ahead
    us kya aap tum app क्या आप तुम कृपया ज़रा जरा अब भी`),
);

/** Heads of a clause that asks about the books rather than ordering a change. */
export const ASKING_HEADS = new Set(
  nfc(`show list get find fetch read view display describe count lookup retrieve browse inspect preview
    download search query tell give what which where when why how who whom whose did does was were is are
    am has had should summarise summarize summary explain analyse analyze compare check verify review
    calculate compute total sum dikhao dikha dikhana batao bata batana dekho dekh dekhna dikhaiye bataiye
    दिखाओ दिखा दिखाइए बताओ बता बताइए देखो देख`),
);

/** Question words that make a clause a question wherever they stand (Hinglish and Hindi ask late). */
export const QUESTION_WORDS = new Set(
  nfc(`kaise kyun kyon kab kaun kitna kitne kitni kahan kidhar कैसे क्यों कब कौन कितना कितने कितनी कहाँ कहां`),
);

/** Pronouns after a modal that make it a question about the speaker (`can I`, `should we`), not an order. */
export const SELF = new Set(nfc('i we me main mai hum मैं हम'));

/** Modals that ask the assistant to act when `you` follows (`can you void…`). */
export const MODALS = new Set(nfc('can could would will may might shall should'));

/** Words that make the next word a noun: `the delete button`, `a new record`, `any update`. */
export const DETERMINERS = new Set(
  nfc(`a an the this that these those any no my our your its their his her every each some of whose
    which what`),
);

/** Words that split a message into clauses, each with its own verb. */
export const CLAUSE_BREAKS = new Set(
  nfc('and but then also aur lekin magar phir fir और लेकिन मगर फिर तथा एवं'),
);

/** Pronouns standing for a record named in another clause (`delete them`, `use cancel karo`). */
export const PRONOUNS = new Set(
  nfc(`it them those these that this one ones use usse usko unhe unko inhe inko ise isko ye yeh wo woh
    इसे उसे इन्हें उन्हें इसको उसको यह वह ये वो`),
);

/** Words naming a kind of record, by the concept they name. */
export const CONCEPTS: ReadonlyMap<string, string> = table({
  invoice: 'invoice invoices inv चालान इनवॉइस इनवॉयस इनवाइस बीजक',
  bill: 'bill bills बिल',
  customer: 'customer customers client clients grahak graahak ग्राहक कस्टमर क्लाइंट',
  vendor: 'vendor vendors supplier suppliers vikreta विक्रेता वेंडर सप्लायर',
  contact: 'contact contacts party parties पार्टी संपर्क कॉन्टैक्ट',
  payment: 'payment payments paid receipt receipts bhugtan bhugtaan rashid raseed भुगतान पेमेंट रसीद',
  expense: 'expense expenses kharcha kharch kharche खर्च खर्चा खर्चे',
  item: 'item items product products service services saamaan saman सामान आइटम प्रोडक्ट',
  journal: 'journal journals जर्नल',
  account: 'account accounts khata khaata खाता',
  estimate: 'estimate estimates quote quotes quotation quotations कोटेशन',
  credit_note: 'credit_note',
  purchase_order: 'purchase_order',
  sales_order: 'sales_order',
  employee: 'employee employees staff karmachari कर्मचारी',
  tax: 'tax taxes gst tds',
  bank: 'bank banks बैंक',
  project: 'project projects',
  note: 'note notes',
  user: 'user users',
});

/** Two words that name one concept. */
export const CONCEPT_PAIRS: Readonly<Record<string, string>> = {
  'credit note': 'credit_note',
  'credit notes': 'credit_note',
  'purchase order': 'purchase_order',
  'purchase orders': 'purchase_order',
  'sales order': 'sales_order',
  'sales orders': 'sales_order',
  'journal entry': 'journal',
  'journal entries': 'journal',
  'write off': 'writeoff',
  'sign off': 'approve',
};

/** Concepts that name one another's records: a contact is a customer or a vendor. */
export const RELATED: Readonly<Record<string, readonly string[]>> = {
  contact: ['customer', 'vendor'],
  customer: ['contact'],
  vendor: ['contact'],
  journal: ['note'],
};

/** Reference numbers by their prefix (`INV-0042`, `BILL-7`): the concept they name. */
export const REFERENCE_PREFIXES: Readonly<Record<string, string>> = {
  inv: 'invoice',
  bill: 'bill',
  cn: 'credit_note',
  po: 'purchase_order',
  so: 'sales_order',
  est: 'estimate',
  qt: 'estimate',
  exp: 'expense',
  pay: 'payment',
  pmt: 'payment',
  je: 'journal',
};

/** Verbs that name their own object: paying makes a payment. */
export const IMPLIED_OBJECTS: Readonly<Record<string, string>> = {
  pay: 'payment',
  settle: 'payment',
  receive: 'payment',
};

/** Nouns of a tool's name that name no kind of record (`mark_invoice_as_paid`). */
export const NOT_OBJECTS = new Set(
  nfc(`as by to from for of with in on at status detail details info data id ids new bulk batch all
    record records bulk single one multiple`),
);

/** Synonyms of change verbs that the tool-name tables do not hold. */
export const VERB_SYNONYMS: Readonly<Record<string, string>> = {
  fix: 'correct',
  prepare: 'create',
  writeoff: 'writeoff',
  remind: 'send',
  forward: 'send',
  mail: 'send',
};
