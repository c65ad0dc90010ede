PRAGMA user_version = 4;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE sessions (
      id             TEXT PRIMARY KEY,
      version        INTEGER NOT NULL,
      created_at     INTEGER NOT NULL,
      cwd            TEXT,
      parent_session TEXT,
      seed_length    INTEGER
    ) STRICT
  ;
INSERT INTO sessions VALUES('single-turn-text',0,1767225600000,'/home/dev/projects/harness',NULL,NULL);
CREATE TABLE events (
      session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq               INTEGER NOT NULL,
      type              TEXT NOT NULL,
      time              INTEGER NOT NULL,
      data              TEXT NOT NULL,
      source_event_seqs TEXT,
      surface_op        TEXT,
      PRIMARY KEY (session_id, seq)
    ) STRICT
  ;
INSERT INTO events VALUES('single-turn-text',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"What is the capital of France? Answer in one sentence."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('single-turn-text',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat","temperature":0.2,"maxTokens":1024},"system":"You are a concise assistant."},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"The capital"}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":" of France"}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":" is Paris."}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"The capital of France is Paris."}}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',9,'assistant/chunk',1767225647675,'{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":38,"outputTokens":9}}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',10,'assistant/chunk',1767225647717,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',11,'assistant/message',1767225647747,'{"turn":1,"step":1,"content":[{"type":"text","text":"The capital of France is Paris."}],"usage":{"inputTokens":38,"outputTokens":9}}','[4,5,6,7,8,9,10]','"append"');
INSERT INTO events VALUES('single-turn-text',12,'step/end',1767225647762,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('single-turn-text',13,'turn/end',1767225647797,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
