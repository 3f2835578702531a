
CREATE TABLE IF NOT EXISTS paper_capabilities (
  setting TEXT NOT NULL, backend TEXT NOT NULL, agent TEXT NOT NULL, judge TEXT NOT NULL,
  strategy_id INTEGER NOT NULL, strategy TEXT NOT NULL, printed TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (setting, backend, agent, strategy_id)
);
