-- Contract §14: each request's signed consent receipts, in their chain's order (docs/receipts.md).
CREATE TABLE IF NOT EXISTS consent_receipts (
  request_id  uuid        NOT NULL,
  seq         integer     NOT NULL,
  receipt_id  uuid        NOT NULL,
  issued_at   timestamptz NOT NULL,
  cause_type  text        NOT NULL,
  status      text        NOT NULL,
  -- The compact JWS as signed: no personal data in clear.
  jws         text        NOT NULL,
  PRIMARY KEY (request_id, seq)
);
