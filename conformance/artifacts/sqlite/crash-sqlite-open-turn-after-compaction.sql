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
INSERT INTO sessions VALUES('crash-after-compaction',0,1767225600000,NULL,NULL,NULL);
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
INSERT INTO events VALUES('crash-after-compaction',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Read the changelog."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('crash-after-compaction',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',3,'assistant/chunk',1767225647462,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',4,'assistant/chunk',1767225647504,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"r1","name":"read_file","argumentsDelta":"{\"path\":\"CHANGELOG.md\"}"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',5,'assistant/chunk',1767225647546,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"r1","name":"read_file","arguments":"{\"path\":\"CHANGELOG.md\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',6,'assistant/chunk',1767225647588,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',7,'assistant/message',1767225647618,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"r1","name":"read_file","arguments":"{\"path\":\"CHANGELOG.md\"}"}]}','[3,4,5,6]','"append"');
INSERT INTO events VALUES('crash-after-compaction',8,'tool/call',1767225647628,'{"turn":1,"step":1,"callId":"r1","name":"read_file","arguments":"{\"path\":\"CHANGELOG.md\"}"}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',9,'tool/result',1767225648268,'{"turn":1,"step":1,"callId":"r1","content":[{"type":"text","text":"## 2.0.0\n- new API\n## 1.9.0\n- fixes"}],"isError":false}','[8]','"append"');
INSERT INTO events VALUES('crash-after-compaction',10,'step/end',1767225648283,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',11,'step/start',1767225648303,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',12,'assistant/chunk',1767225648345,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',13,'assistant/chunk',1767225648387,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"2.0.0 introduced "}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',14,'assistant/chunk',1767225648429,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"the new "}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',15,'assistant/chunk',1767225648471,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"API."}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',16,'assistant/chunk',1767225648513,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"2.0.0 introduced the new API."}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',17,'assistant/chunk',1767225648555,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',18,'assistant/message',1767225648585,'{"turn":1,"step":2,"content":[{"type":"text","text":"2.0.0 introduced the new API."}]}','[12,13,14,15,16,17]','"append"');
INSERT INTO events VALUES('crash-after-compaction',19,'step/end',1767225648600,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',20,'turn/end',1767225648635,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',21,'turn/start',1767225693635,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',22,'user/message',1767225694535,'{"content":[{"type":"text","text":"Draft release notes for 2.1.0."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('crash-after-compaction',23,'compact/start',1767225694540,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',24,'compact/summary',1767225698740,'{"summary":[{"type":"text","text":"## Primary Request and Intent\n- read the changelog\n## Key Facts\n- 2.0.0 = new API"}],"shadowedRange":{"start":1,"end":18},"shadowedSeqs":[1,7,9,18],"shadowedTokenCount":348,"model":"deepseek-chat","maxTokens":8192}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',25,'user/message',1767225698742,'{"content":[{"type":"text","text":"This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.\n\n<compacted-summary>"},{"type":"text","text":"## Primary Request and Intent\n- read the changelog\n## Key Facts\n- 2.0.0 = new API"},{"type":"text","text":"</compacted-summary>"}],"source":{"kind":"plugin","plugin":"compact"}}','[23,24,1,7,9,18]','{"op":"replace","start":1,"end":18}');
INSERT INTO events VALUES('crash-after-compaction',26,'compact/end',1767225698743,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',27,'step/start',1767225698763,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',28,'assistant/chunk',1767225698805,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',29,'assistant/chunk',1767225698847,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"## 2.1.0\n"}}',NULL,NULL);
INSERT INTO events VALUES('crash-after-compaction',30,'assistant/chunk',1767225698889,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"- faster startup"}}',NULL,NULL);
COMMIT;
