/**
 * A plain "yes" in the conversation, in English, Hinglish or Hindi; it may
 * confirm a tier-1 action that the last answer proposed, nothing older.
 */
export const PLAIN_YES =
  /^\s*(yes|y|yeah|yep|ok(ay)?|sure|confirm(ed)?|go ahead|do it|(haan|han|ha)( ji)?( kar do)?|ji haan|kar do|karo|theek( hai)?|thik( hai)?|sahi( hai)?|(हाँ|हां|हा)( जी)?( कर दो| करो)?|जी (हाँ|हां)|ठीक है|कर दो|करो|सही है)\s*[.!।]*\s*$/i;
