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
INSERT INTO sessions VALUES('compaction-once',0,1767225600000,'/repo',NULL,NULL);
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
INSERT INTO events VALUES('compaction-once',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"List the files in the repo."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('compaction-once',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat"}},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Listing."}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Listing."}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"c1","name":"bash","argumentsDelta":"{\"command\":\"ls\"}"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',9,'assistant/chunk',1767225647675,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',10,'assistant/chunk',1767225647717,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',11,'assistant/message',1767225647747,'{"turn":1,"step":1,"content":[{"type":"text","text":"Listing."},{"type":"tool-call","id":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}]}','[4,5,6,7,8,9,10]','"append"');
INSERT INTO events VALUES('compaction-once',12,'tool/call',1767225647757,'{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',13,'tool/result',1767225648397,'{"turn":1,"step":1,"callId":"c1","content":[{"type":"text","text":"README.md\nsrc"}],"isError":false}','[12]','"append"');
INSERT INTO events VALUES('compaction-once',14,'step/end',1767225648412,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',15,'step/start',1767225648432,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',16,'assistant/message',1767225648462,'{"turn":1,"step":2,"content":[{"type":"text","text":"Two entries: README.md and src/."}]}',NULL,'"append"');
INSERT INTO events VALUES('compaction-once',17,'step/end',1767225648477,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',18,'turn/end',1767225648512,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',19,'turn/start',1767225693512,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',20,'user/message',1767225694412,'{"content":[{"type":"text","text":"Now open src."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('compaction-once',21,'compact/start',1767225694417,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',22,'compact/summary',1767225698617,'{"summary":[{"type":"text","text":"## Primary Request and Intent\n- list repo files\n## Key Facts\n- repo has README.md and src/"}],"shadowedRange":{"start":1,"end":16},"shadowedSeqs":[1,11,13,16],"shadowedTokenCount":348,"model":"deepseek-chat","maxTokens":8192}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',23,'user/message',1767225698619,'{"content":[{"type":"text","text":"This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.\n\n<compacted-summary>"},{"type":"text","text":"## Primary Request and Intent\n- list repo files\n## Key Facts\n- repo has README.md and src/"},{"type":"text","text":"</compacted-summary>"}],"source":{"kind":"plugin","plugin":"compact"}}','[21,22,1,11,13,16]','{"op":"replace","start":1,"end":16}');
INSERT INTO events VALUES('compaction-once',24,'compact/end',1767225698620,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',25,'step/start',1767225698640,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',26,'assistant/message',1767225698670,'{"turn":2,"step":1,"content":[{"type":"text","text":"src/ contains main.py."}]}',NULL,'"append"');
INSERT INTO events VALUES('compaction-once',27,'step/end',1767225698685,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-once',28,'turn/end',1767225698720,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
