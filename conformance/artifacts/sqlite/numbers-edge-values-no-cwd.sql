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
INSERT INTO sessions VALUES('numbers-edge',0,1767225600000,NULL,NULL,NULL);
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
INSERT INTO events VALUES('numbers-edge',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Give me some numbers."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('numbers-edge',2,'context/message',1767225647440,'{"content":[{"type":"text","text":"numeric metadata"}],"source":{"kind":"user"},"envelope":"context","meta":{"negZero":0,"negZeroFloat":0,"e21":1e+21,"e21Upper":1e+21,"e21Plus":1e+21,"e20":100000000000000000000,"tenth":0.1,"sum":0.30000000000000004,"tiny":1e-7,"tiny2":0.000001,"denormMin":5e-324,"max":1.7976931348623157e+308,"oneDotZero":1,"exp":0.000025,"neg":-1.5e-10,"e16":10000000000000000,"maxSafe":9007199254740991,"minSafe":-9007199254740991,"unsafe":9007199254740992,"big":12345678901234567000,"bigger":1.2345678901234568e+29,"fracExp":12345.6,"third":0.3333333333333333,"int100":100,"list":[0,0,1,100,1.5e+300,4.35,1]}}',NULL,'"append"');
INSERT INTO events VALUES('numbers-edge',3,'step/start',1767225647460,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',4,'assistant/chunk',1767225647502,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',5,'assistant/chunk',1767225647544,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"n1","name":"python","argumentsDelta":"{\"code\":\"print(2**53 + 1, "}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',6,'assistant/chunk',1767225647586,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"n1","argumentsDelta":"0.1 + 0.2)\"}"}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',7,'assistant/chunk',1767225647628,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"n1","name":"python","arguments":"{\"code\":\"print(2**53 + 1, 0.1 + 0.2)\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',8,'assistant/chunk',1767225647670,'{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":9007199254740991,"outputTokens":0,"cacheReadTokens":0}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',9,'assistant/chunk',1767225647712,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',10,'assistant/message',1767225647742,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"n1","name":"python","arguments":"{\"code\":\"print(2**53 + 1, 0.1 + 0.2)\"}"}],"usage":{"inputTokens":9007199254740991,"outputTokens":0,"cacheReadTokens":0}}','[4,5,6,7,8,9]','"append"');
INSERT INTO events VALUES('numbers-edge',11,'tool/call',1767225647752,'{"turn":1,"step":1,"callId":"n1","name":"python","arguments":"{\"code\":\"print(2**53 + 1, 0.1 + 0.2)\"}"}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',12,'tool/result',1767225648392,'{"turn":1,"step":1,"callId":"n1","content":[{"type":"text","text":"9007199254740993 0.30000000000000004"}],"isError":false,"meta":{"exitCode":0,"elapsed":0.1,"ratio":1e+21,"count":12345678901234567000}}','[11]','"append"');
INSERT INTO events VALUES('numbers-edge',13,'step/end',1767225648407,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',14,'step/start',1767225648427,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',15,'assistant/chunk',1767225648469,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',16,'assistant/chunk',1767225648511,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"2^53+1 = 9007199254740993 "}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',17,'assistant/chunk',1767225648553,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"and 0.1+0.2 = "}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',18,'assistant/chunk',1767225648595,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"0.30000000000000004."}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',19,'assistant/chunk',1767225648637,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"2^53+1 = 9007199254740993 and 0.1+0.2 = 0.30000000000000004."}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',20,'assistant/chunk',1767225648679,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',21,'assistant/message',1767225648709,'{"turn":1,"step":2,"content":[{"type":"text","text":"2^53+1 = 9007199254740993 and 0.1+0.2 = 0.30000000000000004."}]}','[15,16,17,18,19,20]','"append"');
INSERT INTO events VALUES('numbers-edge',22,'step/end',1767225648724,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',23,'todo/write',1767225648729,'{"todos":[{"content":"check floats","status":"completed","priority":1,"weight":0}]}',NULL,NULL);
INSERT INTO events VALUES('numbers-edge',24,'turn/end',1767225649229,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
