
-- A grade is reused only while the submission, the private answers and the
-- grader are all unchanged (grade stage).
ALTER TABLE grades ADD COLUMN answers_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE grades ADD COLUMN grader_version TEXT NOT NULL DEFAULT '';
