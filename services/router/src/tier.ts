import type { Category, ModelTier } from '@munim/contracts';
import { normalize } from './classifier.ts';

/** Words that mark a query as complex enough for the capable model. */
const INDICATORS: readonly string[] = [
  'analyze',
  'analyse',
  'compare',
  'trend',
  'forecast',
  'predict',
  'anomaly',
  'variance',
  'deviation',
  'correlation',
  'regression',
  'and then',
  'after that',
  'additionally',
  'step by step',
  'detailed',
  'comprehensive',
  'deep dive',
  'year over year',
  'yoy',
  'month over month',
  'mom',
  'quarter',
  'seasonal',
  'benchmark',
  'industry average',
  'vishleshan',
  'tulna',
  'purvanumaaan',
];

/** The model tier a query needs: capable for two complexity words, or one in 30+ words; else cheap. */
export function selectTier(query: string, category: Category): ModelTier {
  if (category === 'general_chat') return 'cheap';
  const text = ` ${normalize(query)} `;
  const hits = INDICATORS.filter((k) => text.includes(` ${k} `)).length;
  const words = text.trim().split(' ').length;
  if (words >= 30 && hits >= 1) return 'capable';
  if (hits >= 2) return 'capable';
  return 'cheap';
}
