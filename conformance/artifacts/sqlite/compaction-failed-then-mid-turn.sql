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
INSERT INTO sessions VALUES('compaction-mid-turn',0,1767225600000,'/home/ci/work',NULL,NULL);
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
INSERT INTO events VALUES('compaction-mid-turn',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Run the test suite."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('compaction-mid-turn',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',3,'request/header',1767225647423,'{"header":{"config":{"model":"deepseek-chat"},"tools":[{"name":"bash","description":"Run a shell command.","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}]},"reason":"initial"}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',4,'assistant/chunk',1767225647465,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',5,'assistant/chunk',1767225647507,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"t1","name":"bash","argumentsDelta":"{\"command\":\"pytest "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',6,'assistant/chunk',1767225647549,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"t1","argumentsDelta":"-q\"}"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',7,'assistant/chunk',1767225647591,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"t1","name":"bash","arguments":"{\"command\":\"pytest -q\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',8,'assistant/chunk',1767225647633,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',9,'assistant/message',1767225647663,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"t1","name":"bash","arguments":"{\"command\":\"pytest -q\"}"}]}','[4,5,6,7,8]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',10,'tool/call',1767225647673,'{"turn":1,"step":1,"callId":"t1","name":"bash","arguments":"{\"command\":\"pytest -q\"}"}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',11,'tool/result',1767225648313,'{"turn":1,"step":1,"callId":"t1","content":[{"type":"text","text":"3 failed, 120 passed in 4.20s"}],"isError":false,"meta":{"exitCode":1}}','[10]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',12,'step/end',1767225648328,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',13,'step/start',1767225648348,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',14,'assistant/chunk',1767225648390,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',15,'assistant/chunk',1767225648432,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Three tests "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',16,'assistant/chunk',1767225648474,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"fail; all "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',17,'assistant/chunk',1767225648516,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"in test_parser.py."}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',18,'assistant/chunk',1767225648558,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Three tests fail; all in test_parser.py."}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',19,'assistant/chunk',1767225648600,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',20,'assistant/message',1767225648630,'{"turn":1,"step":2,"content":[{"type":"text","text":"Three tests fail; all in test_parser.py."}]}','[14,15,16,17,18,19]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',21,'step/end',1767225648645,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',22,'turn/end',1767225648680,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',23,'turn/start',1767225693680,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',24,'user/message',1767225694580,'{"content":[{"type":"text","text":"Fix them."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('compaction-mid-turn',25,'compact/start',1767225694585,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',26,'compact/end',1767225698485,'{"turn":2,"error":"summary is not smaller than the shadowed content (131 estimated framed tokens >= 118)"}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',27,'step/start',1767225698505,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',28,'assistant/chunk',1767225698547,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',29,'assistant/chunk',1767225698589,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Reading the "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',30,'assistant/chunk',1767225698631,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"failing tests."}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',31,'assistant/chunk',1767225698673,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Reading the failing tests."}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',32,'assistant/chunk',1767225698715,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',33,'assistant/chunk',1767225698757,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"t2","name":"read_file","argumentsDelta":"{\"path\":\"tests/test_parser.py\"}"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',34,'assistant/chunk',1767225698799,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"t2","name":"read_file","arguments":"{\"path\":\"tests/test_parser.py\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',35,'assistant/chunk',1767225698841,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',36,'assistant/message',1767225698871,'{"turn":2,"step":1,"content":[{"type":"text","text":"Reading the failing tests."},{"type":"tool-call","id":"t2","name":"read_file","arguments":"{\"path\":\"tests/test_parser.py\"}"}]}','[28,29,30,31,32,33,34,35]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',37,'tool/call',1767225698881,'{"turn":2,"step":1,"callId":"t2","name":"read_file","arguments":"{\"path\":\"tests/test_parser.py\"}"}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',38,'tool/result',1767225699521,'{"turn":2,"step":1,"callId":"t2","content":[{"type":"text","text":"def test_empty():\n    assert parse(\"\") == []\n"}],"isError":false}','[37]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',39,'step/end',1767225699536,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',40,'compact/start',1767225699541,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',41,'compact/summary',1767225703741,'{"summary":[{"type":"text","text":"## Primary Request and Intent\n- make the test suite pass\n## Key Facts\n- 3 failures in tests/test_parser.py (empty input)"}],"shadowedRange":{"start":1,"end":38},"shadowedSeqs":[1,9,11,20,24,36,38],"shadowedTokenCount":459,"model":"deepseek-chat","maxTokens":8192}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',42,'user/message',1767225703743,'{"content":[{"type":"text","text":"This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.\n\n<compacted-summary>"},{"type":"text","text":"## Primary Request and Intent\n- make the test suite pass\n## Key Facts\n- 3 failures in tests/test_parser.py (empty input)"},{"type":"text","text":"</compacted-summary>"}],"source":{"kind":"plugin","plugin":"compact"}}','[40,41,1,9,11,20,24,36,38]','{"op":"replace","start":1,"end":38}');
INSERT INTO events VALUES('compaction-mid-turn',43,'compact/end',1767225703744,'{"turn":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',44,'step/start',1767225703764,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',45,'assistant/chunk',1767225703806,'{"turn":2,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',46,'assistant/chunk',1767225703848,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"parse(\"\") must "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',47,'assistant/chunk',1767225703890,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"return []; "}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',48,'assistant/chunk',1767225703932,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"patching."}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',49,'assistant/chunk',1767225703974,'{"turn":2,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"parse(\"\") must return []; patching."}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',50,'assistant/chunk',1767225704016,'{"turn":2,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',51,'assistant/message',1767225704046,'{"turn":2,"step":2,"content":[{"type":"text","text":"parse(\"\") must return []; patching."}]}','[45,46,47,48,49,50]','"append"');
INSERT INTO events VALUES('compaction-mid-turn',52,'step/end',1767225704061,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('compaction-mid-turn',53,'turn/end',1767225704096,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
