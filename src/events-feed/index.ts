/** The events feed (contract §12): the catalogue of thin events and an organization's page of them. */
export { CATALOGUE, FEED_EVENT_TYPES, isFeedEventType, type FeedEvent, type FeedEventOf, type FeedEventType } from './catalogue.js';
export { EventsFeed, type FeedPage, type FeedQuery } from './events-feed.js';
