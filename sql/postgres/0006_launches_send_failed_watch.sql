-- The launch tracker watches, for ten minutes, sends refused in preflight whose earlier
-- send (its answer lost) may still land (api/launches/tracker.ts): this keeps that look-up
-- off a scan of every expired launch. The signed bytes and signature of a launch are kept
-- in the existing signature / signed_transaction columns, now written before the send.
CREATE INDEX IF NOT EXISTS launches_send_failed_watch ON launches (updated_at)
  WHERE status = 'expired' AND error_code = 'SEND_FAILED' AND signature IS NOT NULL;
