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
INSERT INTO sessions VALUES('multi-turn-streams',0,1767225600000,'/home/dev/notebooks',NULL,NULL);
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
INSERT INTO events VALUES('multi-turn-streams',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Is 1001 prime?"}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('multi-turn-streams',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',3,'assistant/chunk',1767225647462,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',4,'assistant/chunk',1767225647504,'{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"1001 = 7 × 143 "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',5,'assistant/chunk',1767225647546,'{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"= 7 × 11 × "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',6,'assistant/chunk',1767225647588,'{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"13, so it is composite."}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',7,'assistant/chunk',1767225647630,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"reasoning","text":"1001 = 7 × 143 = 7 × 11 × 13, so it is composite."}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',8,'assistant/chunk',1767225647672,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',9,'assistant/chunk',1767225647714,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":1,"text":"No — 1001 "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',10,'assistant/chunk',1767225647756,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":1,"text":"= 7 × "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',11,'assistant/chunk',1767225647798,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":1,"text":"11 × 13."}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',12,'assistant/chunk',1767225647840,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"text","text":"No — 1001 = 7 × 11 × 13."}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',13,'assistant/chunk',1767225647882,'{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":20,"outputTokens":41,"reasoningTokens":25}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',14,'assistant/chunk',1767225647924,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',15,'assistant/message',1767225647954,'{"turn":1,"step":1,"content":[{"type":"reasoning","text":"1001 = 7 × 143 = 7 × 11 × 13, so it is composite."},{"type":"text","text":"No — 1001 = 7 × 11 × 13."}],"usage":{"inputTokens":20,"outputTokens":41,"reasoningTokens":25}}','[3,4,5,6,7,8,9,10,11,12,13,14]','"append"');
INSERT INTO events VALUES('multi-turn-streams',16,'step/end',1767225647969,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',17,'turn/end',1767225648004,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',18,'turn/start',1767225693004,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',19,'user/message',1767225693904,'{"content":[{"type":"text","text":"Compute 2^64 with python."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('multi-turn-streams',20,'step/start',1767225693924,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',21,'assistant/chunk',1767225693966,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',22,'assistant/chunk',1767225694008,'{"turn":2,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"Use the "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',23,'assistant/chunk',1767225694050,'{"turn":2,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"python tool."}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',24,'assistant/chunk',1767225694092,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"reasoning","text":"Use the python tool."}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',25,'assistant/chunk',1767225694134,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":1,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',26,'assistant/chunk',1767225694176,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"py_1","name":"python","argumentsDelta":"{\"code\":\"print(2**64)\"}"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',27,'assistant/chunk',1767225694218,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"py_1","name":"python","arguments":"{\"code\":\"print(2**64)\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',28,'assistant/chunk',1767225694260,'{"turn":2,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":75,"outputTokens":30,"reasoningTokens":6}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',29,'assistant/chunk',1767225694302,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',30,'assistant/message',1767225694332,'{"turn":2,"step":1,"content":[{"type":"reasoning","text":"Use the python tool."},{"type":"tool-call","id":"py_1","name":"python","arguments":"{\"code\":\"print(2**64)\"}"}],"usage":{"inputTokens":75,"outputTokens":30,"reasoningTokens":6}}','[21,22,23,24,25,26,27,28,29]','"append"');
INSERT INTO events VALUES('multi-turn-streams',31,'tool/call',1767225694342,'{"turn":2,"step":1,"callId":"py_1","name":"python","arguments":"{\"code\":\"print(2**64)\"}"}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',32,'tool/result',1767225694982,'{"turn":2,"step":1,"callId":"py_1","content":[{"type":"text","text":"18446744073709551616\n"}],"isError":false,"meta":{"exitCode":0}}','[31]','"append"');
INSERT INTO events VALUES('multi-turn-streams',33,'step/end',1767225694997,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',34,'step/start',1767225695017,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',35,'assistant/chunk',1767225695059,'{"turn":2,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',36,'assistant/chunk',1767225695101,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"2^64 "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',37,'assistant/chunk',1767225695143,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"= "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',38,'assistant/chunk',1767225695185,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"18446744073709551616."}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',39,'assistant/chunk',1767225695227,'{"turn":2,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"2^64 = 18446744073709551616."}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',40,'assistant/chunk',1767225695269,'{"turn":2,"step":2,"chunk":{"type":"usage","usage":{"inputTokens":110,"outputTokens":12}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',41,'assistant/chunk',1767225695311,'{"turn":2,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',42,'assistant/message',1767225695341,'{"turn":2,"step":2,"content":[{"type":"text","text":"2^64 = 18446744073709551616."}],"usage":{"inputTokens":110,"outputTokens":12}}','[35,36,37,38,39,40,41]','"append"');
INSERT INTO events VALUES('multi-turn-streams',43,'step/end',1767225695356,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',44,'turn/end',1767225695391,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',45,'turn/start',1767225740391,'{"turn":3,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',46,'user/message',1767225741291,'{"content":[{"type":"text","text":"Write a 5000-word essay on prime numbers."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('multi-turn-streams',47,'step/start',1767225741311,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',48,'assistant/chunk',1767225741353,'{"turn":3,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',49,'assistant/chunk',1767225741395,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Prime numbers have fascinated mathematicians "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',50,'assistant/chunk',1767225741437,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"since antiquity. Euclid proved there "}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',51,'assistant/chunk',1767225741479,'{"turn":3,"step":1,"chunk":{"type":"text-delta","index":0,"text":"are infinitely many of them"}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',52,'assistant/chunk',1767225741521,'{"turn":3,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Prime numbers have fascinated mathematicians since antiquity. Euclid proved there are infinitely many of them"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',53,'assistant/chunk',1767225741563,'{"turn":3,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":140,"outputTokens":4096}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',54,'assistant/chunk',1767225741605,'{"turn":3,"step":1,"chunk":{"type":"finish","reason":{"kind":"max-tokens"}}}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',55,'assistant/message',1767225741635,'{"turn":3,"step":1,"content":[{"type":"text","text":"Prime numbers have fascinated mathematicians since antiquity. Euclid proved there are infinitely many of them"}],"usage":{"inputTokens":140,"outputTokens":4096}}','[48,49,50,51,52,53,54]','"append"');
INSERT INTO events VALUES('multi-turn-streams',56,'step/end',1767225741650,'{"turn":3,"step":1}',NULL,NULL);
INSERT INTO events VALUES('multi-turn-streams',57,'turn/end',1767225741685,'{"turn":3,"reason":{"kind":"max-tokens"}}',NULL,NULL);
COMMIT;
