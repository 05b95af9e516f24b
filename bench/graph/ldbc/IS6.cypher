// IS6. Forum of a message (LDBC SNB Interactive v1, short read 6).
// Given a Message, retrieve the Forum that contains it and the Person that moderates that Forum.
// Comments are not in a Forum: for a Comment, the Forum is the one containing the Post at the root
// of its reply thread.  The thread is replyOf_Comment zero or more times, then replyOf_Post once
// (the specification's REPLY_OF*0.. split by the labels it reaches); a Post is contained directly.
// The deepest thread in SF0.1 is 6 comment-to-comment hops (755914247769).
// params: {"messageId": 755914247769}
// params: {"messageId": 618475290624}
// params: {"messageId": 32485}
// params: {"messageId": 1030792151051}
MATCH (m:Comment {id: $messageId})-[:replyOf_Comment*0..]->(:Comment)-[:replyOf_Post]->(p:Post)
      <-[:containerOf]-(f:Forum)-[:hasModerator]->(mod:Person)
RETURN f.id AS forumId, f.title AS forumTitle, mod.id AS moderatorId, mod.firstName AS moderatorFirstName,
       mod.lastName AS moderatorLastName
UNION ALL
MATCH (p:Post {id: $messageId})<-[:containerOf]-(f:Forum)-[:hasModerator]->(mod:Person)
RETURN f.id AS forumId, f.title AS forumTitle, mod.id AS moderatorId, mod.firstName AS moderatorFirstName,
       mod.lastName AS moderatorLastName
