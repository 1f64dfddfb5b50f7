// The public surface of @munim/finance: each module exports its own.
export {};
